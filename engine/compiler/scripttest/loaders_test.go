package scripttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
	"github.com/cursus-go/cursus/internal/awstest"
)

// awsEnv points a script at endpoint with test credentials only.
func awsEnv(endpoint string) map[string]string {
	return map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
		"AWS_REGION": awstest.Region, "AWS_DEFAULT_REGION": awstest.Region, "AWS_EC2_METADATA_DISABLED": "true"}
}

// TestAthenaDataLoading runs the script against moto's Athena, whose
// query results the test sets: the header row Athena returns first is not
// data, NULL is an empty field, and a failed query fails the job.
func TestAthenaDataLoading(t *testing.T) {
	py := scripttest.PythonWith(t, "boto3")
	moto := awstest.StartMoto(t)
	row := func(vals ...string) map[string]any {
		var data []any
		for _, v := range vals {
			if v == "<null>" {
				data = append(data, map[string]any{})
			} else {
				data = append(data, map[string]any{"VarCharValue": v})
			}
		}
		return map[string]any{"Data": data}
	}
	col := func(name, typ string) map[string]any { return map[string]any{"Name": name, "Label": name, "Type": typ} }
	body, _ := json.Marshal(map[string]any{"region": awstest.Region, "results": []any{map[string]any{
		"rows":        []any{row("order_id", "amount", "is_fraud"), row("A1", "12.5", "0"), row("A2", "<null>", "1"), row("A3", "7", "0")},
		"column_info": []any{col("order_id", "varchar"), col("amount", "double"), col("is_fraud", "integer")},
	}}})
	resp, err := http.Post(moto.Endpoint+"/moto-api/static/athena/query-results", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("set athena results: %v %v", resp, err)
	}
	resp.Body.Close()
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "AthenaDataLoading_training", Python: py, Network: true, ExtraEnv: awsEnv(moto.Endpoint),
		Config: map[string]any{"athena_database": "sales", "athena_query": "SELECT order_id, amount, is_fraud FROM orders", "athena_output_location": "s3://results-bucket/athena/"}})
	data, _ := os.ReadFile(filepath.Join(res.Outputs["DATA"], "part-00000.csv"))
	if string(data) != "order_id,amount,is_fraud\nA1,12.5,0\nA2,,1\nA3,7,0\n" {
		t.Errorf("DATA %q\n%s", data, res.Log)
	}
	sig, _ := os.ReadFile(filepath.Join(res.Outputs["SIGNATURE"], "signature"))
	if string(sig) != "order_id,amount,is_fraud\n" {
		t.Errorf("SIGNATURE %q", sig)
	}
	// The loaded data feeds TabularPreprocessing.
	pre := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_calibration", Config: map[string]any{"label_name": "is_fraud"},
		Inputs: map[string]string{"DATA": res.Outputs["DATA"], "SIGNATURE": res.Outputs["SIGNATURE"]}})
	if tb := scripttest.ReadCSV(t, splitFile(pre.Outputs["processed_data"], "calibration")); len(tb.Rows) != 3 {
		t.Errorf("preprocessed %d rows", len(tb.Rows))
	}
}

// TestRedshiftDataLoading runs the script against moto's STS and Redshift
// Data API. moto leaves every statement STARTED, so a proxy in front of
// it answers DescribeStatement as finished; moto's GetStatementResult
// gives three fixed rows.
func TestRedshiftDataLoading(t *testing.T) {
	py := scripttest.PythonWith(t, "boto3")
	moto := awstest.StartMoto(t)
	target, _ := url.Parse(moto.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var described, executed int
	var sql string
	proxy.ModifyResponse = func(r *http.Response) error {
		switch r.Request.Header.Get("X-Amz-Target") {
		case "RedshiftData.ExecuteStatement":
			executed++
		case "RedshiftData.DescribeStatement":
			described++
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return err
			}
			var d map[string]any
			if err := json.Unmarshal(b, &d); err != nil {
				return err
			}
			sql, _ = d["QueryString"].(string)
			if described > 1 { // the first poll sees it running
				d["Status"], d["HasResultSet"] = "FINISHED", true
			}
			b, _ = json.Marshal(d)
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		}
		return nil
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	cfg := map[string]any{"cluster_id": "analytics", "db_name": "dev", "cluster_endpoint": "analytics.abc.us-east-1.redshift.amazonaws.com",
		"query": "SELECT number, street, city FROM addresses", "redshift_role_arn": "arn:aws:iam::123456789012:role/RedshiftRead"}
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "RedshiftDataLoading", Python: py, Network: true, ExtraEnv: awsEnv(srv.URL), Config: cfg})
	data, _ := os.ReadFile(filepath.Join(res.Outputs["output"], "part-00000.csv"))
	if string(data) != "Number,Street,City\n10,Alpha st,Vancouver\n50,Beta st,Toronto\n100,Gamma av,Seattle\n" {
		t.Errorf("output %q\n%s", data, res.Log)
	}
	if executed != 1 || described < 2 || sql != cfg["query"] {
		t.Errorf("ExecuteStatement %d, DescribeStatement %d, sql %q", executed, described, sql)
	}

	cfg["drop_header"] = true
	res = scripttest.RunProcessing(t, scripttest.Run{Node: "RedshiftDataLoading", Python: py, Network: true, ExtraEnv: awsEnv(srv.URL), Config: cfg})
	if data, _ := os.ReadFile(filepath.Join(res.Outputs["output"], "part-00000.csv")); !strings.HasPrefix(string(data), "10,Alpha st") {
		t.Errorf("drop_header: %q", data)
	}
	delete(cfg, "drop_header")
	cfg["connector_type"] = "pg8000"
	res, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "RedshiftDataLoading", Python: py, Network: true, ExtraEnv: awsEnv(srv.URL), Config: cfg})
	if err == nil || !strings.Contains(res.Log, "use data_api") {
		t.Errorf("a driver the image lacks: %v\n%s", err, res.Log)
	}
}

func cradleConfig() map[string]any {
	return map[string]any{
		"data_sources_spec": map[string]any{"start_date": "2025-01-01T00:00:00", "end_date": "2025-02-01T00:00:00", "data_sources": []any{
			map[string]any{"data_source_name": "RAW", "data_source_type": "MDS", "mds_data_source_properties": map[string]any{"output_schema": []any{
				map[string]any{"field_name": "objectId", "field_type": "STRING"}, map[string]any{"field_name": "amount", "field_type": "DOUBLE"},
				map[string]any{"field_name": "order_count_30d", "field_type": "INT"}, map[string]any{"field_name": "is_abuse", "field_type": "INT"}}}}}},
		"transform_spec": map[string]any{"transform_sql": "SELECT * FROM RAW"},
		"output_spec":    map[string]any{"output_format": "CSV", "output_schema": []any{"objectId", "amount", "order_count_30d", "is_abuse"}},
	}
}

func TestCradleDataLoading(t *testing.T) {
	// Synthetic rows follow the schema; METADATA records the request.
	cfg := cradleConfig()
	cfg["synthetic_data"] = true
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "CradleDataLoading_training", Config: cfg})
	tb := scripttest.ReadCSV(t, filepath.Join(res.Outputs["DATA"], "part-00000.csv"))
	if strings.Join(tb.Header, ",") != "objectId,amount,order_count_30d,is_abuse" || len(tb.Rows) != 600 || len(distinct(tb.Col(t, "is_abuse"))) != 2 {
		t.Fatalf("synthetic data %v, %d rows", tb.Header, len(tb.Rows))
	}
	var meta map[string]any
	b, _ := os.ReadFile(filepath.Join(res.Outputs["METADATA"], "metadata.json"))
	if err := json.Unmarshal(b, &meta); err != nil || meta["mode"] != "synthetic" || meta["request"].(map[string]any)["transformSpecification"].(map[string]any)["transformSql"] != "SELECT * FROM RAW" {
		t.Errorf("metadata %s", b)
	}

	// An export in S3 (moto) given as s3_input_override is downloaded and
	// published in the schema's column order.
	py := scripttest.PythonWith(t, "boto3")
	moto := awstest.StartMoto(t)
	_, s3c := awstest.Clients(moto.Endpoint)
	ctx := context.Background()
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("exports")}); err != nil {
		t.Fatal(err)
	}
	for key, body := range map[string]string{
		"cradle/run1/part-0.csv": "is_abuse,objectId,extra,amount,order_count_30d\n1,o1,x,9.5,3\n",
		"cradle/run1/part-1.csv": "is_abuse,objectId,extra,amount,order_count_30d\n0,o2,y,1.25,0\n",
		"cradle/run1/_SUCCESS":   "",
	} {
		if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("exports"), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg = cradleConfig()
	cfg["s3_input_override"] = "s3://exports/cradle/run1/"
	res = scripttest.RunProcessing(t, scripttest.Run{Node: "CradleDataLoading_calibration", Config: cfg, Python: py, Network: true, ExtraEnv: awsEnv(moto.Endpoint)})
	if data, _ := os.ReadFile(filepath.Join(res.Outputs["DATA"], "part-00000.csv")); string(data) != "objectId,amount,order_count_30d,is_abuse\no1,9.5,3,1\no2,1.25,0,0\n" {
		t.Errorf("override data %q\n%s", data, res.Log)
	}

	// Neither: the job fails and says what to set; a bad spec fails before.
	res, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "CradleDataLoading_training", Config: cradleConfig()})
	if err == nil || !strings.Contains(res.Log, "s3_input_override") {
		t.Errorf("no data source: %v\n%s", err, res.Log)
	}
	cfg = cradleConfig()
	cfg["synthetic_data"] = true
	cfg["data_sources_spec"].(map[string]any)["start_date"] = "2025-03-01T00:00:00"
	if res, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "CradleDataLoading_training", Config: cfg}); err == nil || !strings.Contains(res.Log, "after end_date") {
		t.Errorf("inverted dates: %v\n%s", err, res.Log)
	}
}
