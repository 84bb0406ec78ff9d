package localrun

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/internal/testenv"
)

// The attacks of "a sandbox that holds as root" on the runner's own reads
// and writes: a job (or an archive) shapes what the runner later touches
// on the host (a link to a host file, a directory link out of the run),
// and the host file's content never comes back, nothing is written
// outside the run. Each runs in the real sandbox, as root and as any user.

// canary writes a host file outside the run holding a secret and returns
// its path and the secret.
func canary(t *testing.T, body func(secret string) string) (string, string) {
	t.Helper()
	secret := "canary-" + strings.ReplaceAll(t.Name(), "/", "-")
	f := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(f, []byte(body(secret)), 0o644); err != nil {
		t.Fatal(err)
	}
	return f, secret
}

// reportText is the whole report as JSON, as an answer would carry it.
func reportText(t *testing.T, rep *Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A property file a job made a link to a host file is not read through
// the link: the condition fails as for a missing file and the host file's
// content is nowhere in the report.
func TestAttackPropertyFileLinkedToAHostFile(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	needPython(t)
	needSandbox(t, Bubblewrap)
	host, secret := canary(t, func(s string) string { return `{"auc": "` + s + `"}` })
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam(), {Name: "Threshold", Type: "Float", DefaultValue: 0.7}}
	p.script("s3://bucket/code/eval.py", "eval.py", "import os\nos.symlink("+pyQuote(host)+", '/opt/ml/processing/output/metrics/metrics.json')\n")
	p.step(strings.TrimSuffix(processing("Eval", "eval.py", nil, []string{"metrics"}, nil, nil), "}") +
		`, "PropertyFiles": [{"PropertyFileName": "Report", "OutputName": "metrics", "FilePath": "metrics.json"}]}`)
	report := `{"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Eval.PropertyFiles.Report"}, "Path": "auc"}}`
	p.step(`{"Name": "Gate", "Type": "Condition", "Arguments": {
		"Conditions": [{"Type": "Equals", "LeftValue": ` + report + `, "RightValue": "x"}],
		"IfSteps": [], "ElseSteps": [{"Name": "Gate-Fail", "Type": "Fail", "Arguments": {"ErrorMessage": {"Std:Join": {"On": " ", "Values": ["AUC", ` + report + `]}}}}]}}`)
	rep := p.run(Options{Sandbox: Bubblewrap})
	if strings.Contains(reportText(t, rep), secret) {
		t.Fatalf("the host file's content came back through the property file's link:\n%s", reportText(t, rep))
	}
	g := wantStatus(t, rep, "Gate", StatusFailed)
	if !strings.Contains(g.Error, "metrics.json") || !strings.Contains(g.Error, "no such file") {
		t.Errorf("the gate fails as for a missing property file: %s", g.Error)
	}
}

// An input object that an earlier job made a link to a host file is not
// mounted through the link: the next job does not see the host file.
func TestAttackInputLinkedToAHostFile(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	needPython(t)
	needSandbox(t, Bubblewrap)
	host, secret := canary(t, func(s string) string { return s + "\n" })
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/plant.py", "plant.py", "import os\nd = '/opt/ml/processing/output/o'\nopen(d + '/ok.txt', 'w').write('ok')\n"+
		"os.symlink("+pyQuote(host)+", d + '/secret.txt')\nos.symlink("+pyQuote(filepath.Dir(host))+", d + '/dir')\n")
	p.script("s3://bucket/code/read.py", "read.py", "import os, sys\nfor root, dirs, files in os.walk('/opt/ml/processing/input'):\n"+
		"    for f in files:\n        p = os.path.join(root, f)\n        try:\n            print(p, open(p).read())\n        except Exception as e:\n            print(p, 'refused', e)\n")
	p.step(processing("Plant", "plant.py", nil, []string{"o"}, nil, nil))
	in := func(key string) string {
		return `{"Std:Join": {"On": "/", "Values": [` + outGet("Plant", "o") + `, "` + key + `"]}}`
	}
	for _, key := range []string{"secret.txt", "dir/credentials"} {
		name := "Read-" + strings.NewReplacer("/", "-", ".", "-").Replace(key)
		p.step(processing(name, "read.py", [][3]string{{"in", in(key), "/opt/ml/processing/input/in"}}, []string{"o"}, nil, nil))
	}
	rep := p.run(Options{Sandbox: Bubblewrap})
	if text := reportText(t, rep); strings.Contains(text, secret) {
		t.Fatalf("a job read a host file through an earlier job's link:\n%s", text)
	}
	for _, s := range rep.Steps[1:] {
		if s.Status != StatusFailed || !strings.Contains(s.Error, "no objects") {
			t.Errorf("%s: an input behind a link out of the run has no objects: %s %s", s.Name, s.Status, s.Error)
		}
	}
}

// An output whose S3 URI lies below a directory link an earlier job made
// is not created through the link: nothing appears outside the run.
func TestAttackOutputBelowAJobsDirectoryLink(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	needPython(t)
	needSandbox(t, Bubblewrap)
	outside := t.TempDir()
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/plant.py", "plant.py", "import os\nos.symlink("+pyQuote(outside)+", '/opt/ml/processing/output/o/escape')\n")
	p.script("s3://bucket/code/write.py", "write.py", "open('/opt/ml/processing/output/w/pwned', 'w').write('x')\n")
	p.step(processing("Plant", "plant.py", nil, []string{"o"}, nil, nil))
	w := processing("Write", "write.py", nil, []string{"w"}, nil, nil, "Plant")
	w = strings.Replace(w, `{"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "write", "w"]}}`,
		`{"Std:Join": {"On": "/", "Values": [`+outGet("Plant", "o")+`, "escape", "w"]}}`, 1)
	p.step(w)
	rep := p.run(Options{Sandbox: Bubblewrap})
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the run wrote outside its directory through a job's link: %v", ents)
	}
	if s := wantStatus(t, rep, "Write", StatusFailed); !strings.Contains(s.Error, "output w") {
		t.Errorf("the output below the link is refused, naming it: %s", s.Error)
	}
}

// A training job's model directory holding links to host files is packed
// with the links as links: model.tar.gz never holds the host file.
func TestAttackModelLinkedToAHostFile(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	needPython(t)
	needSandbox(t, Bubblewrap)
	host, secret := canary(t, func(s string) string { return s + "\n" })
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.sourceDir("s3://bucket/code/train/sourcedir.tar.gz", "train", map[string]string{
		"train.py": "import os\nos.symlink(" + pyQuote(host) + ", '/opt/ml/model/model.bin')\nos.makedirs('/opt/ml/output/data', exist_ok=True)\n" +
			"os.symlink(" + pyQuote(host) + ", '/opt/ml/output/data/data.bin')\nopen('/opt/ml/model/real.txt', 'w').write('m')\n",
	})
	p.step(`{"Name": "Train", "Type": "Training", "Arguments": {
		"AlgorithmSpecification": {"TrainingImage": "image", "TrainingInputMode": "File"},
		"OutputDataConfig": {"S3OutputPath": "s3://bucket/models"},
		"StoppingCondition": {"MaxRuntimeInSeconds": 600},
		"ResourceConfig": {"VolumeSizeInGB": 30, "InstanceCount": 1, "InstanceType": "ml.m5.large"},
		"RoleArn": "arn:aws:iam::123456789012:role/r",
		"HyperParameters": {"sagemaker_program": "\"train.py\"", "sagemaker_submit_directory": "\"s3://bucket/code/train/sourcedir.tar.gz\""}}}`)
	rep := p.run(Options{Sandbox: Bubblewrap})
	s := wantStatus(t, rep, "Train", StatusSucceeded)
	for _, out := range []string{outModelArtifacts, "output_data"} {
		b, err := os.ReadFile(s.Outputs[out])
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		gz, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		var plain bytes.Buffer
		for {
			h, err := tr.Next()
			if err != nil {
				break
			}
			plain.WriteString(h.Name + " " + h.Linkname + "\n")
			_, _ = plain.ReadFrom(tr)
		}
		if strings.Contains(plain.String(), secret) {
			t.Fatalf("%s holds the host file a job linked to:\n%s", out, plain.String())
		}
	}
}

func pyQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
