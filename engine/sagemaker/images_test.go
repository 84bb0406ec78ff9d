package sagemaker

import (
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestImageURIKnown(t *testing.T) {
	cases := []struct {
		name                                        string
		framework, version, region, py, inst, scope string
		want                                        string
	}{
		// Seen in real definitions (shared/sagemaker-pipeline-schema/examples): abalone ran on SageMaker.
		{"sklearn 1.2-1 us-east-1", "sklearn", "1.2-1", "us-east-1", "", "ml.m5.2xlarge", "training",
			"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3"},
		{"xgboost 1.0-1 abalone", "xgboost", "1.0-1", "us-west-2", "", "ml.m5.xlarge", "training",
			"246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3"},
		{"xgboost 1.0-1 abalone model", "xgboost", "1.0-1", "us-west-2", "py3", "ml.m5.large", "inference",
			"246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3"},
		{"sklearn 0.23-1 abalone", "sklearn", "0.23-1", "us-west-2", "py3", "ml.m5.xlarge", "training",
			"246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-scikit-learn:0.23-1-cpu-py3"},
		{"pytorch 2.0.0 cpu (dynamic framework example, without its container suffix)", "pytorch", "2.0.0", "us-east-1", "py310", "ml.m5.xlarge", "training",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.0.0-cpu-py310"},
		// SDK unit-test value (GRAVITON_IMAGE_TORCHSERVE).
		{"pytorch graviton inference", "pytorch", "2.1.0", "us-east-1", "py310", "ml.c6g.xlarge", "inference",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-graviton:2.1.0-cpu-py310-ubuntu20.04-sagemaker"},
		// Tag rules of the SDK applied to the table.
		{"xgboost 1.7-1 no processor in tag", "xgboost", "1.7-1", "us-east-1", "", "ml.m5.4xlarge", "training",
			"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"},
		{"xgboost 1.7-1 on gpu is the same image", "xgboost", "1.7-1", "us-east-1", "py3", "ml.g5.xlarge", "training",
			"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"},
		{"xgboost 1.5-1 inference no instance type", "xgboost", "1.5-1", "us-east-1", "", "", "inference",
			"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.5-1"},
		{"xgboost govcloud", "xgboost", "1.7-1", "us-gov-west-1", "", "ml.m5.large", "training",
			"414596584902.dkr.ecr.us-gov-west-1.amazonaws.com/sagemaker-xgboost:1.7-1"},
		{"xgboost legacy latest", "xgboost", "latest", "us-east-1", "", "", "training",
			"811284229777.dkr.ecr.us-east-1.amazonaws.com/xgboost:latest"},
		{"xgboost graviton arm64 tag", "xgboost", "1.5-1", "us-east-1", "", "ml.c6g.large", "inference",
			"683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.5-1-arm64"},
		{"sklearn graviton arm64 tag", "sklearn", "1.0-1", "eu-west-1", "", "ml.m6g.large", "inference",
			"141502667606.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-scikit-learn:1.0-1-arm64-cpu-py3"},
		{"sklearn iso region", "sklearn", "1.2-1", "us-iso-east-1", "", "ml.m5.large", "training",
			"833128469047.dkr.ecr.us-iso-east-1.c2s.ic.gov/sagemaker-scikit-learn:1.2-1-cpu-py3"},
		{"pytorch gpu inference", "pytorch", "1.12.1", "eu-central-1", "py38", "ml.g4dn.xlarge", "inference",
			"763104351884.dkr.ecr.eu-central-1.amazonaws.com/pytorch-inference:1.12.1-gpu-py38"},
		{"pytorch single py version defaulted", "pytorch", "2.1.0", "us-east-1", "", "ml.p3.2xlarge", "training",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1.0-gpu-py310"},
		{"pytorch alias keeps alias in tag", "pytorch", "2.1", "us-east-1", "py310", "ml.m5.xlarge", "training",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1-cpu-py310"},
		{"pytorch china partition", "pytorch", "2.1.0", "cn-north-1", "py310", "ml.m5.xlarge", "training",
			"727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/pytorch-training:2.1.0-cpu-py310"},
		{"pytorch p4d container suffix", "pytorch", "1.6.0", "us-west-2", "py3", "ml.p4d.24xlarge", "training",
			"763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:1.6.0-gpu-py3-cu110-ubuntu18.04"},
		{"lightgbm maps to pytorch", "lightgbm", "2.1.0", "us-east-1", "py310", "ml.m5.4xlarge", "training",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1.0-cpu-py310"},
		{"lightgbmmt maps to pytorch, case and spaces ignored", " LightGBMMT ", "2.1.0", "us-east-1", "py310", "ml.g5.2xlarge", "training",
			"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1.0-gpu-py310"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ImageURI(c.framework, c.version, c.region, c.py, c.inst, c.scope)
			if err != nil {
				t.Fatalf("ImageURI: %v", err)
			}
			if got != c.want {
				t.Errorf("ImageURI(%q, %q, %q, %q, %q, %q)\n got %s\nwant %s", c.framework, c.version, c.region, c.py, c.inst, c.scope, got, c.want)
			}
		})
	}
}

func TestImageURIErrors(t *testing.T) {
	cases := []struct {
		name                                        string
		framework, version, region, py, inst, scope string
		field                                       string
		mention                                     []string // substrings of the message (supported values etc.)
	}{
		{"unknown framework", "tensorflow", "2.11", "us-east-1", "", "ml.m5.large", "training", "framework",
			[]string{"lightgbm", "pytorch", "sklearn", "xgboost"}},
		{"bad scope", "xgboost", "1.7-1", "us-east-1", "", "", "serving", "scope", []string{"inference", "training"}},
		{"empty scope", "xgboost", "1.7-1", "us-east-1", "", "", "", "scope", []string{"inference, training"}},
		{"unknown version lists versions", "xgboost", "9.9-9", "us-east-1", "", "", "training", "version",
			[]string{"0.90-1", "1.5-1", "1.7-1", "3.0-5"}},
		{"empty version", "sklearn", "", "us-east-1", "", "", "training", "version", []string{"1.2-1"}},
		{"unknown region lists regions", "sklearn", "1.2-1", "xx-nowhere-1", "", "", "training", "region",
			[]string{"us-east-1", "eu-west-1"}},
		{"ambiguous py version", "pytorch", "1.8.1", "us-east-1", "", "ml.m5.large", "training", "py_version",
			[]string{"py3, py36"}},
		{"wrong py version", "pytorch", "2.1.0", "us-east-1", "py27", "ml.m5.large", "training", "py_version",
			[]string{"py310"}},
		{"pytorch needs instance type", "pytorch", "2.1.0", "us-east-1", "py310", "", "training", "instance_type",
			[]string{"cpu and gpu"}},
		{"sklearn has no gpu image", "sklearn", "1.2-1", "us-east-1", "", "ml.p3.2xlarge", "training", "instance_type",
			[]string{"gpu", "cpu"}},
		{"malformed instance type", "pytorch", "2.1.0", "us-east-1", "py310", "m5.large", "training", "instance_type",
			[]string{"ml.<family>.<size>"}},
		{"graviton training refused", "xgboost", "1.5-1", "us-east-1", "", "ml.c6g.large", "training", "instance_type",
			[]string{"inference only"}},
		{"graviton version without arm tag", "xgboost", "1.7-1", "us-east-1", "", "ml.c6g.large", "inference", "version",
			[]string{"1.3-1", "1.5-1"}},
		{"inferentia not in table", "pytorch", "2.1.0", "us-east-1", "py310", "ml.inf2.xlarge", "inference", "instance_type",
			[]string{"inf"}},
		{"p2 deprecated from 1.13", "pytorch", "2.0.1", "us-east-1", "py310", "ml.p2.xlarge", "training", "instance_type",
			[]string{"P2"}},
		{"region missing for that version", "pytorch", "2.8.0", "us-iso-east-1", "py312", "ml.m5.large", "training", "region",
			[]string{"us-east-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ImageURI(c.framework, c.version, c.region, c.py, c.inst, c.scope)
			if err == nil {
				t.Fatalf("want error, got %s", got)
			}
			var ie *ImageError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not *ImageError", err, err)
			}
			if ie.Field != c.field {
				t.Errorf("Field = %q, want %q (%v)", ie.Field, c.field, err)
			}
			for _, m := range c.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

// TestImageTablesLoad loads every embedded table and resolves every version of every scope in every
// region it lists, so a table entry the code cannot turn into a well-formed URI fails here.
func TestImageTablesLoad(t *testing.T) {
	tables, err := loadImageTables()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(tables) != len(imageTableFiles) {
		t.Fatalf("loaded %d tables, want %d", len(tables), len(imageTableFiles))
	}
	uriRe := regexp.MustCompile(`^[0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.(amazonaws\.com|amazonaws\.com\.cn|c2s\.ic\.gov|sc2s\.sgov\.gov|csp\.hci\.ic\.gov)/[a-z0-9._/-]+:[A-Za-z0-9._-]+$`)
	n := 0
	for fw, table := range tables {
		for _, scope := range []string{ScopeTraining, ScopeInference} {
			versions, err := ImageVersions(fw, scope)
			if err != nil {
				t.Fatalf("ImageVersions(%s, %s): %v", fw, scope, err)
			}
			sc := table[scope]
			for _, v := range versions {
				key := v
				if a, ok := sc.VersionAliases[v]; ok {
					key = a
				}
				e := sc.Versions[key]
				for region := range e.Registries {
					for _, inst := range []string{"ml.m5.xlarge", "ml.g5.xlarge"} {
						py := ""
						if len(e.PyVersions) > 0 {
							py = e.PyVersions[len(e.PyVersions)-1]
						}
						uri, err := ImageURI(fw, v, region, py, inst, scope)
						if inst == "ml.g5.xlarge" && (slices.Equal(e.Processors, []string{"cpu"}) || slices.Equal(sc.Processors, []string{"cpu"})) {
							if err == nil {
								t.Errorf("%s %s %s %s on gpu: want error, got %s", fw, scope, v, region, uri)
							}
							continue
						}
						if err != nil {
							t.Errorf("%s %s %s %s %s: %v", fw, scope, v, region, inst, err)
							continue
						}
						if !uriRe.MatchString(uri) || !strings.Contains(uri, "/"+e.Repository+":"+v) {
							t.Errorf("%s %s %s %s: malformed %s", fw, scope, v, region, uri)
						}
						n++
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("resolved only %d URIs; the tables look truncated", n)
	}
	t.Logf("resolved %d image URIs", n)
}

func TestParseImageTableRejectsBadData(t *testing.T) {
	cases := map[string]string{
		"unknown key":     `{"training": {"versions": {"1": {"repository": "r", "registries": {"us-east-1": "123456789012"}, "tag_prefix": "x"}}}}`,
		"bad account":     `{"training": {"versions": {"1": {"repository": "r", "registries": {"us-east-1": "1234"}}}}}`,
		"bad region":      `{"training": {"versions": {"1": {"repository": "r", "registries": {"US East": "123456789012"}}}}}`,
		"dangling alias":  `{"training": {"version_aliases": {"1.0": "1.0.9"}, "versions": {"1": {"repository": "r", "registries": {"us-east-1": "123456789012"}}}}}`,
		"bad processor":   `{"training": {"processors": ["tpu"], "versions": {"1": {"repository": "r", "registries": {"us-east-1": "123456789012"}}}}}`,
		"bad py version":  `{"training": {"versions": {"1": {"repository": "r", "py_versions": ["3.10"], "registries": {"us-east-1": "123456789012"}}}}}`,
		"no versions":     `{"training": {"versions": {}}}`,
		"no registries":   `{"training": {"versions": {"1": {"repository": "r"}}}}`,
		"bad repository":  `{"training": {"versions": {"1": {"repository": "Bad Repo", "registries": {"us-east-1": "123456789012"}}}}}`,
		"stray container": `{"training": {"versions": {"1": {"repository": "r", "registries": {"us-east-1": "123456789012"}, "container_version": {"gpu": "x"}}}}}`,
	}
	for name, raw := range cases {
		if _, err := parseImageTable([]byte(raw)); err == nil {
			t.Errorf("%s: parse accepted bad table", name)
		}
	}
	if _, err := parseImageTable([]byte(`{"training": {"versions": {"1": {"repository": "r", "registries": {"us-east-1": "123456789012"}}}}}`)); err != nil {
		t.Errorf("minimal good table rejected: %v", err)
	}
}

func TestImageVersionsOrder(t *testing.T) {
	got, err := ImageVersions("xgboost", "training")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0.90-1", "0.90-2", "1", "1.0-1", "1.2-1", "1.2-2", "1.3-1", "1.5-1", "1.7-1", "3.0-5", "3.2-0", "latest"}
	if !slices.Equal(got, want) {
		t.Errorf("ImageVersions(xgboost, training) = %v, want %v", got, want)
	}
	pt, err := ImageVersions("lightgbm", "training")
	if err != nil {
		t.Fatal(err)
	}
	if i, j := slices.Index(pt, "1.9.1"), slices.Index(pt, "1.10.0"); i < 0 || j < 0 || i > j {
		t.Errorf("1.9.1 should sort before 1.10.0: %v", pt)
	}
	if _, err := ImageVersions("mxnet", "training"); err == nil {
		t.Error("ImageVersions(mxnet) should fail")
	}
}

func TestImageURIConcurrent(t *testing.T) {
	done := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := ImageURI("pytorch", "2.1.0", "us-east-1", "py310", "ml.m5.xlarge", "training")
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkImageURI(b *testing.B) {
	for b.Loop() {
		if _, err := ImageURI("pytorch", "2.1.0", "us-east-1", "py310", "ml.g5.xlarge", "training"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseImageTables measures decoding and validating every embedded table (done once per
// process, on first use).
func BenchmarkParseImageTables(b *testing.B) {
	raws := make([][]byte, 0, len(imageTableFiles))
	for _, path := range imageTableFiles {
		raw, err := imageFS.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	for b.Loop() {
		for _, raw := range raws {
			if _, err := parseImageTable(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Versions whose registries are equal share one map once the tables are
// loaded, and each still answers its own regions.
func TestImageTablesShareEqualRegistries(t *testing.T) {
	tables, err := loadImageTables()
	if err != nil {
		t.Fatal(err)
	}
	maps := map[uintptr]bool{}
	versions := 0
	for fw, tbl := range tables {
		raw, err := imageFS.ReadFile(imageTableFiles[fw])
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := parseImageTable(raw)
		if err != nil {
			t.Fatal(err)
		}
		for scope, sc := range tbl {
			for v, e := range sc.Versions {
				versions++
				maps[reflect.ValueOf(e.Registries).Pointer()] = true
				if want := fresh[scope].Versions[v].Registries; !reflect.DeepEqual(e.Registries, want) {
					t.Errorf("%s %s %s: registries %v, want %v", fw, scope, v, e.Registries, want)
				}
			}
		}
	}
	if versions < 50 || len(maps) > versions/5 {
		t.Errorf("%d versions hold %d registries maps; equal ones are not shared", versions, len(maps))
	}
}

// loadImageTables loads every embedded table (loadImageTable), keyed by
// framework.
func loadImageTables() (map[string]map[string]imageScope, error) {
	tables := make(map[string]map[string]imageScope, len(imageTableFiles))
	for fw := range imageTableFiles {
		t, err := loadImageTable(fw)
		if err != nil {
			return nil, err
		}
		tables[fw] = t
	}
	return tables, nil
}

// An image lookup decodes only its framework's table.
func TestImageURILoadsOnlyItsTable(t *testing.T) {
	saved := imageTableCache
	defer func() { imageTableCache = saved }()
	loaded := map[string]bool{}
	imageTableCache = map[string]func() (map[string]imageScope, error){}
	for fw, load := range saved {
		imageTableCache[fw] = func() (map[string]imageScope, error) {
			loaded[fw] = true
			return load()
		}
	}
	uri, err := ImageURI("xgboost", "1.7-1", "us-east-1", "", "ml.m5.xlarge", ScopeTraining)
	if err != nil || !strings.Contains(uri, "sagemaker-xgboost:1.7-1") {
		t.Fatalf("ImageURI = %q, %v", uri, err)
	}
	for fw := range imageTableFiles {
		if loaded[fw] != (fw == "xgboost") {
			t.Errorf("table %s loaded: %v", fw, loaded[fw])
		}
	}
}
