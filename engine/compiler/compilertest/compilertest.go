// Package compilertest checks compiled SageMaker pipeline definitions the
// way the compiler's tests (and the tools' tests) need: against the
// SageMaker pipeline-definition JSON schemas (the strict copy, with closed
// objects, and the relaxed copy), and step by step against the aws-sdk-go-v2
// request type of each job.
//
// The schemas are an oracle kept outside the repository: point
// CURSUS_SAGEMAKER_SCHEMA_DIR at the folder that holds
// pipeline-definition.schema.strict.json (and .relaxed.json, plus the
// examples/ the oracle's own test reads). Without it, [RequireSchemas] and
// [CheckSchemas] skip with one line naming the variable, so a fresh clone
// passes its tests; with CI set (any non-empty value) or
// CURSUS_REQUIRE_ORACLES=1 they fail instead, so CI cannot pass by skipping.
//
// The SDK check decodes a step's Arguments into the request type
// (sagemaker.CreateProcessingJobInput, ...) with unknown fields disallowed,
// after replacing each pipeline expression ({"Get": ...}, {"Std:Join": ...},
// {"Std:JsonGet": ...}) by a placeholder of the type the request field
// has, then sends the request through a real SDK client whose HTTP client
// is a stub. The client runs the SDK's own generated required-field
// validation (validateOpCreateProcessingJobInput and friends, which are
// internal to the SDK) before it serializes; a request that fails it never
// reaches the stub. So "the stub saw the request" means "the SDK accepted
// it". Job names are omitted from definitions by design (SageMaker names
// jobs at execution time), so the check fills a placeholder job name first.
package compilertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smithy "github.com/aws/smithy-go"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/xeipuuv/gojsonschema"
)

// SchemaDirEnv names the variable that points at the schema folder.
const SchemaDirEnv = "CURSUS_SAGEMAKER_SCHEMA_DIR"

// SchemaDir returns $CURSUS_SAGEMAKER_SCHEMA_DIR when it holds the strict
// schema, else an error that says what to set.
func SchemaDir() (string, error) {
	d := os.Getenv(SchemaDirEnv)
	if d == "" {
		return "", fmt.Errorf("SageMaker pipeline-definition schemas not configured: set %s to the folder holding pipeline-definition.schema.strict.json", SchemaDirEnv)
	}
	if st, err := os.Stat(filepath.Join(d, "pipeline-definition.schema.strict.json")); err != nil || st.IsDir() {
		return "", fmt.Errorf("%s=%s does not hold pipeline-definition.schema.strict.json", SchemaDirEnv, d)
	}
	return filepath.Clean(d), nil
}

// OraclesRequired reports whether a missing oracle must fail a test rather
// than skip it: under CI (CI set to any non-empty value) or with
// CURSUS_REQUIRE_ORACLES=1.
func OraclesRequired() bool {
	return testenv.CI() || os.Getenv("CURSUS_REQUIRE_ORACLES") == "1"
}

// RequireSchemas returns the schema folder, or ends the test when there is
// none: a skip with one line saying which variable to set, or a failure
// when [OraclesRequired].
func RequireSchemas(t testing.TB) string {
	t.Helper()
	d, err := SchemaDir()
	if err != nil {
		if OraclesRequired() {
			t.Fatalf("oracle required (CI or CURSUS_REQUIRE_ORACLES=1): %v", err)
		}
		t.Skipf("oracle skipped: %v", err)
	}
	return d
}

// CheckSchemas validates a definition against each schema variant (both
// when none is named) in a subtest of its own, "schema_<variant>", so that
// only the oracle part of a test skips when the schemas are absent and the
// skip is named in the test output. Every violation is a test error. The
// forms of SchemaGaps, which the SDK writes and the strict schema rejects,
// are bridged first (SchemaView) and logged.
func CheckSchemas(t *testing.T, definition []byte, variants ...string) {
	t.Helper()
	if len(variants) == 0 {
		variants = []string{Strict, Relaxed}
	}
	view, bridged, err := SchemaView(definition)
	if err != nil {
		t.Fatalf("the definition is not JSON: %v", err)
	}
	for _, v := range variants {
		t.Run("schema_"+v, func(t *testing.T) {
			RequireSchemas(t)
			if len(bridged) > 0 {
				t.Log(gapsNote(bridged))
			}
			errs, err := ValidateSchema(v, view)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("%s schema: %s", v, e)
			}
		})
	}
}

var (
	schemaOnce sync.Once
	schemas    map[string]*gojsonschema.Schema
	schemaErr  error
)

// The schema variants Validate knows.
const (
	Strict  = "strict"
	Relaxed = "relaxed"
)

func loadSchemas() (map[string]*gojsonschema.Schema, error) {
	schemaOnce.Do(func() {
		dir, err := SchemaDir()
		if err != nil {
			schemaErr = err
			return
		}
		schemas = map[string]*gojsonschema.Schema{}
		for _, v := range []string{Strict, Relaxed} {
			b, err := os.ReadFile(filepath.Join(dir, "pipeline-definition.schema."+v+".json"))
			if err != nil {
				schemaErr = err
				return
			}
			s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(b))
			if err != nil {
				schemaErr = fmt.Errorf("%s schema: %w", v, err)
				return
			}
			schemas[v] = s
		}
	})
	return schemas, schemaErr
}

// ValidateSchema validates a definition against the strict or relaxed
// schema and returns the violations ("<path>: <message>"), sorted.
func ValidateSchema(variant string, definition []byte) ([]string, error) {
	ss, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	s, ok := ss[variant]
	if !ok {
		return nil, fmt.Errorf("unknown schema variant %q", variant)
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(definition))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range res.Errors() {
		out = append(out, e.Field()+": "+e.Description())
	}
	sort.Strings(out)
	return out, nil
}

// operation is how a step Type maps onto the SageMaker API: the client
// method its Arguments mirror (found by the name the compiler's kind table
// gives, compiler.DefinitionKinds) and the job-name member the definition
// omits.
type operation struct {
	method  reflect.Method // (*sagemaker.Client).<APIRequest>
	nameFld string
}

// input returns a new request of the operation's input type.
func (op operation) input() any { return reflect.New(op.method.Type.In(2).Elem()).Interface() }

// call sends in through the client.
func (op operation) call(ctx context.Context, c *sagemaker.Client, in any) error {
	out := op.method.Func.Call([]reflect.Value{reflect.ValueOf(c), reflect.ValueOf(ctx), reflect.ValueOf(in)})
	if err, _ := out[1].Interface().(error); err != nil {
		return err
	}
	return nil
}

// operations maps each step Type with an API request to its operation;
// noRequest lists the Types that start no job (Condition, Fail).
var operations, noRequest = func() (map[string]operation, map[string]bool) {
	ops, none := map[string]operation{}, map[string]bool{}
	client := reflect.TypeOf(&sagemaker.Client{})
	for _, k := range compiler.DefinitionKinds() {
		if k.APIRequest == "" || k.Shape != "" {
			none[k.Type] = true
			continue
		}
		m, ok := client.MethodByName(k.APIRequest)
		if !ok {
			panic(fmt.Sprintf("compilertest: the SDK client has no method %s (step Type %s)", k.APIRequest, k.Type))
		}
		ops[k.Type] = operation{method: m, nameFld: k.JobNameField}
	}
	return ops, none
}()

// stubTransport answers every request with 200 {} and counts them.
type stubTransport struct {
	mu    sync.Mutex
	calls int
	body  []byte
}

func (s *stubTransport) Do(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if r.Body != nil {
		s.body, _ = io.ReadAll(r.Body)
	}
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": []string{"application/x-amz-json-1.1"}},
		Body:       io.NopCloser(strings.NewReader("{}")),
		Request:    r,
	}, nil
}

// CheckSDK checks every step of a definition against its SDK request type
// (see the package doc), the steps of a Condition's IfSteps and ElseSteps
// included. It returns one error per failing step.
func CheckSDK(definition []byte) []error {
	var def struct {
		Steps []sdkStep `json:"Steps"`
	}
	if err := json.Unmarshal(definition, &def); err != nil {
		return []error{err}
	}
	var errs []error
	var check func([]sdkStep)
	check = func(steps []sdkStep) {
		for _, s := range steps {
			if err := CheckStepArguments(s.Type, s.Arguments); err != nil {
				errs = append(errs, fmt.Errorf("step %s (%s): %w", s.Name, s.Type, err))
			}
			var branches struct {
				IfSteps   []sdkStep `json:"IfSteps"`
				ElseSteps []sdkStep `json:"ElseSteps"`
			}
			if s.Type == "Condition" && json.Unmarshal(s.Arguments, &branches) == nil {
				check(branches.IfSteps)
				check(branches.ElseSteps)
			}
		}
	}
	check(def.Steps)
	return errs
}

// sdkStep is a step as CheckSDK reads it.
type sdkStep struct {
	Name      string          `json:"Name"`
	Type      string          `json:"Type"`
	Arguments json.RawMessage `json:"Arguments"`
}

// CheckStepArguments decodes one step's Arguments into the request type of
// stepType with unknown fields disallowed and runs it through the SDK's
// validation. An EMR step is checked against EMR's AddJobFlowSteps or
// RunJobFlow (checkEMRArguments). A step Type that starts no job
// (Condition, Fail, Lambda, Callback) has no request to check: the schemas
// check it.
func CheckStepArguments(stepType string, arguments []byte) error {
	if stepType == "EMR" {
		return checkEMRArguments(arguments)
	}
	if noRequest[stepType] {
		return nil
	}
	op, ok := operations[stepType]
	if !ok {
		return fmt.Errorf("no SDK operation known for step type %q", stepType)
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	in := op.input()
	sub := Substitute(raw, reflect.TypeOf(in))
	b, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(in); err != nil {
		return fmt.Errorf("decode into %T: %w", in, err)
	}
	if op.nameFld != "" {
		f := reflect.ValueOf(in).Elem().FieldByName(op.nameFld)
		if !f.IsNil() {
			return fmt.Errorf("%s is set; definitions omit job names", op.nameFld)
		}
		f.Set(reflect.ValueOf(aws.String("placeholder-job-name")))
	}
	stub := &stubTransport{}
	client := sagemaker.New(sagemaker.Options{
		Region:      "us-east-1",
		Credentials: aws.AnonymousCredentials{},
		HTTPClient:  stub,
		Retryer:     aws.NopRetryer{},
	})
	err = op.call(context.Background(), client, in)
	var ipe smithy.InvalidParamsError
	if errors.As(err, &ipe) {
		return fmt.Errorf("SDK validation: %w", err)
	}
	if stub.calls != 1 {
		return fmt.Errorf("the SDK did not send the request: %v", err)
	}
	if err != nil {
		return fmt.Errorf("SDK call through the stub: %w", err)
	}
	return nil
}

// Substitute replaces pipeline expressions in a decoded JSON value with
// placeholders of the type t expects at that place: a string (the first
// enum value for enum types), 1 for integers, 1.0 for floats, false for
// booleans. Other values are walked in parallel with t.
func Substitute(v any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := v.(type) {
	case map[string]any:
		if isExpressionMap(x) {
			return placeholder(t)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch t.Kind() {
			case reflect.Struct:
				if f, ok := fieldByJSONName(t, k); ok {
					out[k] = Substitute(e, f.Type)
					continue
				}
				out[k] = e
			case reflect.Map:
				out[k] = Substitute(e, t.Elem())
			default:
				out[k] = e
			}
		}
		return out
	case []any:
		if t.Kind() != reflect.Slice {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Substitute(e, t.Elem())
		}
		return out
	}
	return v
}

func isExpressionMap(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Get" || k == "Std:Join" || k == "Std:JsonGet"
	}
	return false
}

func placeholder(t reflect.Type) any {
	switch t.Kind() {
	case reflect.String:
		if vm := reflect.New(t).Elem().MethodByName("Values"); vm.IsValid() {
			out := vm.Call(nil)
			if len(out) == 1 && out[0].Len() > 0 {
				return out[0].Index(0).String()
			}
		}
		return "s3://placeholder-bucket/expression"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return 1
	case reflect.Float32, reflect.Float64:
		return 1.0
	case reflect.Bool:
		return false
	}
	return "placeholder"
}

// fieldByJSONName finds the struct field encoding/json would decode key
// into (exact name first, then case-insensitive).
func fieldByJSONName(t reflect.Type, key string) (reflect.StructField, bool) {
	if f, ok := t.FieldByName(key); ok && f.IsExported() {
		return f, true
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() && strings.EqualFold(f.Name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
