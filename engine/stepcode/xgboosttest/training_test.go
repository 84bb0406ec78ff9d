package xgboosttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// xgbConfig is the XGBoost training config for the generated data
// (columns id, num_1..num_4, cat_1, cat_2, label).
func xgbConfig(classes int) map[string]any {
	objective := "binary:logistic"
	if classes > 2 {
		objective = "multi:softprob"
	}
	return map[string]any{
		"label_name": "label", "id_name": "id", "objective": objective,
		"tab_field_list": []any{"num_1", "num_2", "num_3", "num_4"}, "cat_field_list": []any{"cat_1", "cat_2"},
		"num_round": 30, "max_depth": 3, "eta": 0.3, "smooth_factor": 0.01,
	}
}

// cacheDir keeps what several tests reuse (a trained model per class
// count) for the life of the test binary.
var (
	cacheDir string
	cacheMu  sync.Mutex
	models   = map[int]*trainedModel{}
)

func TestMain(m *testing.M) { scripttest.MainWithDir(m, &cacheDir) }

type trainedModel struct {
	res  scripttest.TrainingResult
	data string
}

// trained runs XGBoostTraining on preprocessed generated data, once per
// class count: later calls get the first run's files.
func trained(t *testing.T, classes int) (*scripttest.TrainingResult, string) {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if m, ok := models[classes]; ok {
		res := m.res
		return &res, m.data
	}
	data := preprocessed(t, classes, 0.05)
	res := scripttest.RunTraining(t, scripttest.Run{Node: "XGBoostTraining", Config: xgbConfig(classes),
		Inputs: map[string]string{"input_path": data}})
	keep := filepath.Join(cacheDir, fmt.Sprintf("classes-%d", classes))
	m := &trainedModel{res: *res, data: filepath.Join(keep, "data")}
	m.res.ModelDir, m.res.OutputDir = filepath.Join(keep, "model"), filepath.Join(keep, "output")
	m.res.ModelTar, m.res.OutputTar = filepath.Join(keep, "model.tar.gz"), filepath.Join(keep, "output.tar.gz")
	for _, c := range [][2]string{{data, m.data}, {res.ModelDir, m.res.ModelDir}, {res.OutputDir, m.res.OutputDir}, {res.ModelTar, keep}, {res.OutputTar, keep}} {
		if err := os.MkdirAll(c[1], 0o755); err != nil {
			t.Fatal(err)
		}
		scripttest.CopyInto(t, c[0], c[1])
	}
	models[classes] = m
	out := m.res
	return &out, m.data
}

func readJSON(t *testing.T, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func TestXGBoostTraining(t *testing.T) {
	for _, classes := range []int{2, 3} {
		res, _ := trained(t, classes)
		for _, f := range []string{"xgboost_model.json", "risk_table_map.json", "impute_dict.json", "feature_columns.txt", "feature_importance.json", "hyperparameters.json"} {
			scripttest.MustFile(t, filepath.Join(res.ModelDir, f))
		}
		var hp map[string]any
		readJSON(t, filepath.Join(res.ModelDir, "hyperparameters.json"), &hp)
		if hp["num_classes"] != float64(classes) || hp["label_name"] != "label" {
			t.Errorf("%d classes: hyperparameters.json %v", classes, hp)
		}
		var risk map[string]map[string]any
		readJSON(t, filepath.Join(res.ModelDir, "risk_table_map.json"), &risk)
		if bins, _ := risk["cat_1"]["bins"].(map[string]any); len(bins) != 5 {
			t.Errorf("cat_1 risk scripttest.Table %v", risk["cat_1"])
		}
		// The toolkit's --key value arguments and SM_* environment are tolerated.
		if !strings.Contains(strings.Join(res.Args, " "), "--label_name label") {
			t.Errorf("args %v", res.Args)
		}
		var metrics map[string]map[string]any
		readJSON(t, filepath.Join(res.OutputDir, "metrics.json"), &metrics)
		for _, split := range []string{"val", "test"} {
			m := metrics[split]
			key := "auc_roc"
			if classes > 2 {
				key = "auc_roc_macro"
			}
			if auc, _ := m[key].(float64); auc < 0.7 {
				t.Errorf("%d classes: %s %s = %v (the generated label is learnable)", classes, split, key, m[key])
			}
			tb := scripttest.ReadCSV(t, filepath.Join(res.OutputDir, split, "predictions.csv"))
			want := []string{"id", "label"}
			for i := 0; i < classes; i++ {
				want = append(want, "prob_class_"+string(rune('0'+i)))
			}
			if strings.Join(tb.Header, ",") != strings.Join(want, ",") || len(tb.Rows) < 50 {
				t.Errorf("%d classes: %s predictions %v, %d rows", classes, split, tb.Header, len(tb.Rows))
			}
		}
		if classes == 2 && !strings.Contains(res.Log, "validation auc: ") {
			t.Errorf("no 'validation auc:' lines for the tuner's metric regex:\n%s", res.Log)
		}
		files := scripttest.TarFiles(t, res.ModelTar)
		if strings.Join(files, ",") != "feature_columns.txt,feature_importance.json,hyperparameters.json,impute_dict.json,risk_table_map.json,xgboost_model.json" {
			t.Errorf("model.tar.gz holds %v", files)
		}
	}
}

func TestXGBoostTrainingRefusals(t *testing.T) {
	_, data := trained(t, 2)
	cfg := xgbConfig(2)
	cfg["tab_field_list"] = []any{"num_1", "no_such_column"}
	res, err := scripttest.RunTrainingErr(t, scripttest.Run{Node: "XGBoostTraining", Config: cfg, Inputs: map[string]string{"input_path": data}})
	if err == nil || !strings.Contains(res.Log, "no_such_column") {
		t.Errorf("a missing feature column: %v\n%s", err, res.Log)
	}
	cfg = xgbConfig(3) // multi:softprob
	cfg["objective"] = "binary:logistic"
	_, data3 := trained(t, 3)
	res, err = scripttest.RunTrainingErr(t, scripttest.Run{Node: "XGBoostTraining", Config: cfg, Inputs: map[string]string{"input_path": data3}})
	if err == nil || !strings.Contains(res.Log, "needs two classes") {
		t.Errorf("a binary objective on three classes: %v\n%s", err, res.Log)
	}
}

// TestXGBoostTuningTrial: a tuning trial runs the training script with the
// static hyperparameters and the tuner's values as plain text (0.05,
// gbtree), and prints the objective metric the tuner's regex reads.
func TestXGBoostTuningTrial(t *testing.T) {
	_, data := trained(t, 2)
	cfg := xgbConfig(2)
	cfg["search_space"] = map[string]any{"continuous": map[string]any{"eta": []any{0.05, 0.3}},
		"categorical": map[string]any{"booster": []any{"gbtree", "dart"}}}
	res := scripttest.RunTraining(t, scripttest.Run{Node: "XGBoostTuning", Config: cfg, Inputs: map[string]string{"input_path": data}})
	if res.Hyper["eta"] != "0.05" || res.Hyper["booster"] != "gbtree" {
		t.Errorf("trial hyperparameters eta %q booster %q", res.Hyper["eta"], res.Hyper["booster"])
	}
	if !regexp.MustCompile(`validation auc: ([0-9\.]+)`).MatchString(res.Log) {
		t.Errorf("the objective metric validation:auc is not in the log:\n%s", res.Log)
	}
	var hp map[string]any
	readJSON(t, filepath.Join(res.ModelDir, "hyperparameters.json"), &hp)
	if hp["eta"] != 0.05 || hp["booster"] != "gbtree" {
		t.Errorf("the trial trained with %v / %v", hp["eta"], hp["booster"])
	}
}

// TestXGBoostRegression: a regression objective trains, evaluates and
// writes prediction columns instead of class probabilities.
func TestXGBoostRegression(t *testing.T) {
	_, data := trained(t, 2)
	cfg := xgbConfig(2)
	cfg["objective"] = "reg:squarederror"
	res := scripttest.RunTraining(t, scripttest.Run{Node: "XGBoostTraining", Config: cfg, Inputs: map[string]string{"input_path": data}})
	var metrics map[string]map[string]any
	readJSON(t, filepath.Join(res.OutputDir, "metrics.json"), &metrics)
	if rmse, _ := metrics["test"]["rmse"].(float64); rmse <= 0 || rmse > 0.6 {
		t.Errorf("regression test metrics %v", metrics["test"])
	}
	if tb := scripttest.ReadCSV(t, filepath.Join(res.OutputDir, "test", "predictions.csv")); strings.Join(tb.Header, ",") != "id,label,prediction" {
		t.Errorf("regression predictions %v", tb.Header)
	}
	ev := scripttest.RunProcessing(t, scripttest.Run{Node: "XGBoostModelEval_testing", Config: map[string]any{"id_name": "id", "label_name": "label"},
		Inputs: map[string]string{"model_input": modelInput(t, res.ModelTar), "processed_data": filepath.Join(data, "test")}})
	m := metricsOf(t, filepath.Join(ev.Outputs["metrics_output"], "metrics.json"))
	if m["task"] != "regression" || m["rmse"] == nil || m["r2"] == nil {
		t.Errorf("regression eval metrics %v", m)
	}
}

// numTrees reads the number of trees of a saved booster.
func numTrees(t *testing.T, modelDir string) int {
	t.Helper()
	var m struct {
		Learner struct {
			GradientBooster struct {
				Model struct {
					Param struct {
						NumTrees string `json:"num_trees"`
					} `json:"gbtree_model_param"`
				} `json:"model"`
			} `json:"gradient_booster"`
		} `json:"learner"`
	}
	readJSON(t, filepath.Join(modelDir, "xgboost_model.json"), &m)
	var n int
	if _, err := fmt.Sscan(m.Learner.GradientBooster.Model.Param.NumTrees, &n); err != nil {
		t.Fatalf("num_trees %q: %v", m.Learner.GradientBooster.Model.Param.NumTrees, err)
	}
	return n
}

// TestXGBoostTrainingContinues: an earlier model in model_artifacts_input
// (the model.tar.gz an XGBoostTraining step wrote, the edge the resolver
// binds through the port's compatible_output_types) is boosted further
// with its own feature columns and tables; a model of other classes is
// refused.
func TestXGBoostTrainingContinues(t *testing.T) {
	first, data := trained(t, 2)
	dir := t.TempDir()
	scripttest.CopyInto(t, first.ModelTar, dir)
	cfg := xgbConfig(2)
	cfg["num_round"] = 10
	cfg["tab_field_list"] = []any{"num_1"} // the earlier model's columns win
	res := scripttest.RunTraining(t, scripttest.Run{Node: "XGBoostTraining", Config: cfg,
		Inputs: map[string]string{"input_path": data, "model_artifacts_input": dir}})
	if !strings.Contains(res.Log, "continuing from the earlier model") {
		t.Errorf("the earlier model was not used:\n%s", res.Log)
	}
	before, after := numTrees(t, first.ModelDir), numTrees(t, res.ModelDir)
	if before != 30 || after != before+10 {
		t.Errorf("trees: %d before, %d after 10 more rounds", before, after)
	}
	var hp map[string]any
	readJSON(t, filepath.Join(res.ModelDir, "hyperparameters.json"), &hp)
	if cols, _ := hp["feature_columns"].([]any); len(cols) != 6 {
		t.Errorf("feature columns %v: want the earlier model's six", hp["feature_columns"])
	}

	three, _ := trained(t, 3)
	dir3 := t.TempDir()
	scripttest.CopyInto(t, three.ModelTar, dir3)
	res, err := scripttest.RunTrainingErr(t, scripttest.Run{Node: "XGBoostTraining", Config: xgbConfig(2),
		Inputs: map[string]string{"input_path": data, "model_artifacts_input": dir3}})
	if err == nil || !strings.Contains(res.Log, "objective") {
		t.Errorf("a three-class model under a binary job: %v\n%s", err, res.Log)
	}
}
