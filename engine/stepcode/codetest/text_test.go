package codetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeTickets writes n support tickets: id, x1 and c1 (noise), text and label. The label is 1
// when the text names a defect (refund, broken, damaged, cancelled) and is carried by the text
// alone. Some texts start with a capital and end with "!", some hold a comma, and every 50th is
// empty (label 0). It returns how many texts are not empty.
func writeTickets(t *testing.T, path, split string, n int, seed uint64) int {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	neutral := []string{"order", "package", "delivery", "customer", "please", "thanks", "account", "today", "item",
		"store", "support", "help", "arrived", "shipping", "the", "my", "was", "is"}
	defects := []string{"refund", "broken", "damaged", "cancelled"}
	var rows [][]string
	texts := 0
	for i := 0; i < n; i++ {
		k := 4 + r.IntN(7)
		words := make([]string, k)
		for j := range words {
			words[j] = neutral[r.IntN(len(neutral))]
		}
		label := "0"
		if r.IntN(2) == 0 {
			words[r.IntN(k)] = defects[r.IntN(len(defects))]
			label = "1"
		}
		if i%4 == 1 {
			words[0] += ","
		}
		text := strings.Join(words, " ")
		if i%3 == 0 {
			text = strings.ToUpper(text[:1]) + text[1:] + "!"
		}
		if i%50 == 7 {
			text, label = "", "0"
		} else {
			texts++
		}
		rows = append(rows, []string{fmt.Sprintf("%s-%d", split, i), strconv.FormatFloat(r.NormFloat64(), 'f', 4, 64),
			[]string{"a", "b", "c"}[r.IntN(3)], text, label})
	}
	writeRows(t, path, []string{"id", "x1", "c1", "text", "label"}, rows)
	return texts
}

// ticketChannels writes train (400), val (150) and test (150) tickets under dataDir.
func ticketChannels(t *testing.T, dataDir string) {
	t.Helper()
	for i, s := range []struct {
		split string
		n     int
	}{{"train", 400}, {"val", 150}, {"test", 150}} {
		writeTickets(t, filepath.Join(dataDir, s.split, s.split+".csv"), s.split, s.n, uint64(i+1))
	}
}

func textHyperparameters(extra map[string]any) map[string]any {
	hp := map[string]any{
		"label_name": "label", "id_name": "id", "tab_field_list": []string{"x1"}, "cat_field_list": []string{"c1"},
		"text_name": "text", "max_sequence_length": 16, "text_embedding_dim": 16,
		"max_epochs": 15, "hidden_dims": []int{16}, "lr": 0.01, "batch_size": 32,
	}
	for k, v := range extra {
		hp[k] = v
	}
	return hp
}

func TestTokenizerTrainingFeedsThePyTorchTextModel(t *testing.T) {
	sb := needSandbox(t, torchModules...)

	// TokenizerTraining on train/ (val/ beside it is not read).
	p := newProcessingDirs(t)
	texts := writeTickets(t, p.path("input/data/train/train.csv"), "train", 400, 1)
	writeTickets(t, p.path("input/data/val/val.csv"), "val", 150, 2)
	env := map[string]string{"TEXT_FIELD": "text", "VOCAB_SIZE": "300", "MIN_FREQUENCY": "2"}
	out := sb.mustRun(t, job{script: "tokenizer_training.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "training"}})
	tok := readJSON(t, p.path("output/tokenizer/tokenizer.json"))
	vocab, _ := tok["vocab"].(map[string]any)
	merges, _ := tok["merges"].([]any)
	if tok["type"] != "bpe" || len(vocab) > 300 || len(merges) == 0 || len(vocab) != 4+countChars(vocab)+len(merges) {
		t.Fatalf("tokenizer.json: type %v, %d tokens, %d merges\n%s", tok["type"], len(vocab), len(merges), out)
	}
	for _, w := range []string{"<pad>", "<unk>", "<cls>", "<sep>", "refund</w>", "cancelled</w>", "!</w>", ",</w>"} {
		if _, ok := vocab[w]; !ok {
			t.Errorf("the vocabulary lacks %q (every word of the data is frequent)", w)
		}
	}
	if _, ok := vocab["Refund</w>"]; ok {
		t.Errorf("the vocabulary has an upper-case token though LOWERCASE defaults to true")
	}
	rep := readJSON(t, p.path("output/tokenizer/tokenizer_report.json"))
	if metric(t, rep, "texts") != float64(texts) || metric(t, rep, "unknown_rate") != 0 || metric(t, rep, "vocab_size") != float64(len(vocab)) {
		t.Errorf("tokenizer_report: %v (want %d texts, no unknown tokens, %d tokens)", rep, texts, len(vocab))
	}

	// A column the data lacks is named.
	bad := newProcessingDirs(t)
	writeTickets(t, bad.path("input/data/train/train.csv"), "train", 20, 1)
	if out, err := sb.run(t, job{script: "tokenizer_training.py", codeDir: "/opt/ml/processing/input/code", binds: bad.binds(),
		env: map[string]string{"TEXT_FIELD": "body"}, args: []string{"--job_type", "training"}}); err == nil || !strings.Contains(out, "'body' is not a column") {
		t.Errorf("TEXT_FIELD=body: err %v\n%s", err, out)
	}

	// PyTorchTraining with the text field reads the tokenizer from model_artifacts_input.
	d := newTrainingDirs(t)
	ticketChannels(t, filepath.Join(d.input, "data"))
	copyFile(t, p.path("output/tokenizer/tokenizer.json"), filepath.Join(d.input, "data", "model_artifacts_input", "tokenizer", "tokenizer.json"))
	// Given a tokenizer but no text_name, the training refuses it rather than train a tabular model.
	hp := textHyperparameters(map[string]any{"text_name": ""})
	d.writeHyperparameters(t, hp)
	if out, err := sb.run(t, job{script: "pytorch_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: trainingEnv()}); err == nil || !strings.Contains(out, "text_name is empty") {
		t.Errorf("a tokenizer without text_name: err %v\n%s", err, out)
	}
	hp = textHyperparameters(map[string]any{"text_model": "lstm"})
	d.writeHyperparameters(t, hp)
	out = sb.mustRun(t, job{script: "pytorch_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: trainingEnv(), args: toolkitArgs(hp)})
	if !strings.Contains(out, "tokenizer from /opt/ml/input/data/model_artifacts_input/tokenizer/tokenizer.json") {
		t.Errorf("training did not say it read the given tokenizer:\n%s", out)
	}
	cfg := readJSON(t, filepath.Join(d.model, "model_config.json"))
	if cfg["text_field"] != "text" || cfg["text_model"] != "lstm" || metric(t, cfg, "max_sequence_length") != 16 {
		t.Errorf("model_config: text_field %v text_model %v max_sequence_length %v", cfg["text_field"], cfg["text_model"], cfg["max_sequence_length"])
	}
	saved := readJSON(t, filepath.Join(d.model, "tokenizer.json"))
	if fmt.Sprint(saved["vocab"]) != fmt.Sprint(tok["vocab"]) || fmt.Sprint(saved["merges"]) != fmt.Sprint(tok["merges"]) {
		t.Errorf("the model's tokenizer.json is not the one TokenizerTraining wrote")
	}
	if _, err := os.Stat(filepath.Join(d.model, "tokenizer_bpe.py")); err != nil {
		t.Errorf("the model carries no tokenizer code: %v", err)
	}
	// The label is in the text alone: a model that read only x1 and c1 would score about 0.5.
	if auc := metric(t, readJSON(t, filepath.Join(d.output, "data", "val", "metrics.json")), "auc"); auc < 0.95 {
		t.Errorf("val auc %.3f < 0.95: the text did not reach the network\n%s", auc, out)
	}
	testM := readJSON(t, filepath.Join(d.output, "data", "test", "metrics.json"))

	// Evaluation of the packed model scores the test split as training's own test pass did.
	e := newProcessingDirs(t)
	torchModelInput(t, d, e)
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), e.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "pytorch_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: e.binds(),
		env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label", "EVAL_METRIC_CHOICES": "auc,average_precision"}, args: []string{"--job_type", "testing"}})
	m := readJSON(t, e.path("output/metrics/metrics.json"))
	for _, k := range []string{"auc", "average_precision"} {
		if !near(metric(t, m, k), metric(t, testM, k), 1e-6) {
			t.Errorf("eval %s %v, training's test %v", k, m[k], testM[k])
		}
	}
	evalProbs := probs(t, e.path("output/eval/eval_predictions.csv"), "id")

	// Batch inference: the same probabilities.
	q := newProcessingDirs(t)
	torchModelInput(t, d, q)
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), q.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "pytorch_model_inference.py", codeDir: "/opt/ml/processing/input/code", binds: q.binds(),
		env: map[string]string{"ID_FIELD": "id"}, args: []string{"--job_type", "testing"}})
	for id, pr := range probs(t, q.path("output/eval/predictions.csv"), "id") {
		if !near(pr[1], evalProbs[id][1], 1e-5) {
			t.Fatalf("row %s: inference %v, eval %v", id, pr, evalProbs[id])
		}
	}

	// Serving: the handlers encode the text with the tokenizer code the model carries.
	got := serve(t, sb, "pytorch", e.path("input/model/model.tar.gz"), filepath.Join(d.input, "data", "test", "test.csv"))
	checkServed(t, got, evalProbs, 1e-5)
}

// countChars counts the single-character tokens of a vocabulary (and the end-of-word marker).
func countChars(vocab map[string]any) int {
	n := 0
	for tok := range vocab {
		if tok == "</w>" || (len([]rune(tok)) == 1) {
			n++
		}
	}
	return n
}

func TestPyTorchTextEncodersTrainTheirOwnTokenizer(t *testing.T) {
	sb := needSandbox(t, torchModules...)
	for _, model := range []string{"bag", "transformer"} {
		t.Run(model, func(t *testing.T) {
			d := newTrainingDirs(t)
			ticketChannels(t, filepath.Join(d.input, "data"))
			hp := textHyperparameters(map[string]any{"text_model": model, "tokenizer_vocab_size": 200})
			d.writeHyperparameters(t, hp)
			env := trainingEnv()
			if model == "bag" {
				env["ENABLE_TRUE_STREAMING"] = "true" // the texts are gathered chunk by chunk
			}
			out := sb.mustRun(t, job{script: "pytorch_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: env, args: toolkitArgs(hp)})
			if !strings.Contains(out, "no tokenizer in model_artifacts_input: trained one on 392 texts") {
				t.Errorf("training did not say it trained a tokenizer on the 392 texts:\n%s", out)
			}
			tok := readJSON(t, filepath.Join(d.model, "tokenizer.json"))
			if v, _ := tok["vocab"].(map[string]any); len(v) == 0 || len(v) > 200 {
				t.Errorf("the trained tokenizer has %d tokens (tokenizer_vocab_size 200)", len(v))
			}
			if auc := metric(t, readJSON(t, filepath.Join(d.output, "data", "val", "metrics.json")), "auc"); auc < 0.9 {
				t.Errorf("%s: val auc %.3f < 0.9\n%s", model, auc, out)
			}
		})
	}
}

func TestSteplibBPE(t *testing.T) {
	t.Parallel()
	runSteplib(t, `
import os, tempfile
from steplib import bpe

texts = ["low lower lowest", "Low low newer newest!", "widest wider", "abc abc xab xbc xab xbc"]
vocab, merges = bpe.train(texts, 1000, 2)
# Ids are 0..n-1 with the special tokens first, and every merge's token is in the vocabulary once
# ("abc" comes of ("ab", "c") and of ("a", "bc")... only when both were learnt).
assert sorted(vocab.values()) == list(range(len(vocab))), vocab
assert [vocab[s] for s in bpe.SPECIAL] == [0, 1, 2, 3]
assert all(a + b in vocab for a, b in merges)
assert merges[0] == ("o", "w"), merges[:3]
assert bpe.train(texts, 1000, 2) == (vocab, merges)  # deterministic
tok = bpe.Tokenizer(vocab, merges)
assert tok.word_tokens("lowest") == ["low", "est</w>"], tok.word_tokens("lowest")
ids = tok.encode("Lowest")
assert ids[0] == bpe.CLS and ids[-1] == bpe.SEP and ids[1:-1] == [vocab["low"], vocab["est</w>"]], ids
assert bpe.UNK in tok.encode("q")  # a character never seen
# max_length: cut (ending in <sep>) or padded.
assert tok.encode("low low low low low", 4) == [bpe.CLS, vocab["low</w>"], vocab["low</w>"], bpe.SEP]
assert tok.encode("low", 6) == [bpe.CLS, vocab["low</w>"], bpe.SEP, bpe.PAD, bpe.PAD, bpe.PAD]
assert tok.encode(None, 3) == [bpe.CLS, bpe.SEP, bpe.PAD]
# vocab_size caps the vocabulary; min_frequency stops the merges.
small, m = bpe.train(texts, len(bpe.SPECIAL) + 20, 2)
assert len(small) <= 24, len(small)
_, rare = bpe.train(texts, 1000, 100)
assert rare == []
# Case is kept when asked.
cased, _ = bpe.train(texts, 1000, 1, lowercase=False)
assert "L" in cased and "L" not in vocab
# Saved and loaded, it encodes the same.
path = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
tok.save(path)
back = bpe.load(path)
assert back.encode("newest widest abc", 12) == tok.encode("newest widest abc", 12)
with open(path, "w") as f:
    f.write('{"type": "wordpiece"}')
try:
    bpe.load(path)
    raise AssertionError("loaded a tokenizer of another kind")
except SystemExit as e:
    assert "not a tokenizer of TokenizerTraining" in str(e)
`)
}
