"""XGBoostModelEval: score a labelled data set with a trained XGBoost model and report metrics.

Inputs
  /opt/ml/processing/input/model      model.tar.gz from XGBoostTraining or XGBoostTuning (or its
                                      unpacked files): xgboost_model.json, risk_table_map.json,
                                      impute_dict.json, feature_columns.txt, hyperparameters.json
  /opt/ml/processing/input/eval_data  the data: *.csv, *.tsv, *.json(l), *.parquet (optionally
                                      .gz, in any folder depth, or inside a .tar.gz)
Outputs
  /opt/ml/processing/output/eval      eval_predictions.csv: id, label, prob_class_<i> (or
                                      prediction for a regression model) for every row
  /opt/ml/processing/output/metrics   metrics.json (task, num_samples and the chosen metrics:
                                      auc_roc, average_precision, f1_score, accuracy, ...; for
                                      multiclass *_macro / *_micro; regression rmse, mae, r2;
                                      a "comparison" object in comparison mode),
                                      metrics_summary.txt and, with matplotlib, roc_curve.jpg,
                                      pr_curve.jpg (and comparison plots)
Environment
  ID_FIELD, LABEL_FIELD (required), EVAL_METRIC_CHOICES (comma-separated: auc, average_precision,
  f1_score, accuracy, log_loss, precision, recall, brier_score), COMPARISON_MODE with
  PREVIOUS_SCORE_FIELD (a column of the data holding a previous model's class-1 score),
  COMPARISON_METRICS (all or basic), STATISTICAL_TESTS (McNemar, paired t, Wilcoxon),
  COMPARISON_PLOTS
Arguments
  --job_type   the split being evaluated (logged and recorded in metrics.json)
"""
import argparse
import os
import sys

import numpy as np
import pandas as pd

from steplib import metrics, tables, xgbmodel

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUTPUT_DIR = "/opt/ml/processing/output/eval"
METRICS_DIR = "/opt/ml/processing/output/metrics"


def log(msg):
    print("[xgboost_model_eval] " + msg, flush=True)


def fail(msg):
    print("[xgboost_model_eval] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def comparison(y, new, old, which, kind, tests):
    """The previous score's metrics, the deltas and (kind all) agreement; with tests McNemar
    on the 0.5 decisions and paired t / Wilcoxon on the absolute errors."""
    out = {"previous": metrics.binary(y, old, which)}
    current = metrics.binary(y, new, which)
    out["delta"] = {m: (current[m] - out["previous"][m]) if current[m] is not None and out["previous"][m] is not None else None for m in which}
    from scipy import stats
    if kind == "all":
        out["pearson_correlation"] = metrics.num(stats.pearsonr(new, old)[0]) if len(y) > 2 else None
        out["spearman_correlation"] = metrics.num(stats.spearmanr(new, old)[0]) if len(y) > 2 else None
        out["decision_agreement"] = float(np.mean((new >= 0.5) == (old >= 0.5)))
    if tests:
        right_new, right_old = (new >= 0.5) == y, (old >= 0.5) == y
        b, c = int(np.sum(right_new & ~right_old)), int(np.sum(~right_new & right_old))
        mcnemar = (abs(b - c) - 1) ** 2 / float(b + c) if b + c else 0.0
        res = {"mcnemar": {"statistic": mcnemar, "p_value": float(stats.chi2.sf(mcnemar, 1)), "new_only_right": b, "previous_only_right": c}}
        err_new, err_old = np.abs(y - new), np.abs(y - old)
        if len(y) > 1 and np.any(err_new != err_old):
            t = stats.ttest_rel(err_new, err_old)
            res["paired_t_test"] = {"statistic": metrics.num(t.statistic), "p_value": metrics.num(t.pvalue)}
            w = stats.wilcoxon(err_new, err_old)
            res["wilcoxon"] = {"statistic": metrics.num(w.statistic), "p_value": metrics.num(w.pvalue)}
        out["statistical_tests"] = res
    return out


def comparison_plot(out_dir, old, new):
    plt = metrics.pyplot()
    if plt is None:
        return []
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(old, new, s=4, alpha=0.5)
    ax.set_xlabel("previous score")
    ax.set_ylabel("new score")
    fig.savefig(os.path.join(out_dir, "score_comparison.jpg"))
    plt.close(fig)
    return ["score_comparison.jpg"]


def main(input_paths, output_paths, environ_vars, job_args):
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    try:
        model = xgbmodel.load(input_paths["model_input"])
    except ValueError as e:
        fail(str(e))
    log("model from %s: %s, %d features" % (model.dir, model.task, len(model.columns)))
    df, files = tables.read_tables(input_paths["processed_data"], log=log)
    if df is None:
        fail("no data files in %s" % input_paths["processed_data"])
    log("read %d file(s) from %s" % (len(files), input_paths["processed_data"]))
    if label not in df.columns:
        fail("the data has no label column %s (columns: %s)" % (label, ", ".join(map(str, df.columns))))
    try:
        which = metrics.choices(environ_vars.get("EVAL_METRIC_CHOICES"))
        y = model.encode_labels(df[label])
        keep = ~y.isna()
        df, y = df[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        scores = model.predict(df)
    except ValueError as e:
        fail(str(e))
    log("job type %s: %d labelled rows" % (job_args.job_type, len(df)))
    regression = model.task == "regression"
    yi = y.values if regression else y.astype(int).values
    preds = xgbmodel.prediction_frame(df, id_field, scores, regression, label, yi, log)
    report = {"job_type": job_args.job_type, "task": model.task, "num_samples": int(len(df))}
    eval_dir, metrics_dir = output_paths["eval_output"], output_paths["metrics_output"]
    os.makedirs(eval_dir, exist_ok=True)
    os.makedirs(metrics_dir, exist_ok=True)
    if regression:
        report.update(metrics.regression(yi, scores))
    else:
        report.update(metrics.binary(yi, scores[:, 1], which) if model.task == "binary" else metrics.multiclass(yi, scores, which))
        series = [("model", yi, scores[:, 1])] if model.task == "binary" else [(str(i), (yi == i).astype(int), scores[:, i]) for i in range(scores.shape[1])]
        old = None
        if tables.truthy(environ_vars.get("COMPARISON_MODE")):
            prev = environ_vars.get("PREVIOUS_SCORE_FIELD", "")
            if model.task != "binary":
                log("comparison mode compares binary scores; skipped for a %s model" % model.task)
            elif not prev or prev not in df.columns:
                fail("COMPARISON_MODE needs PREVIOUS_SCORE_FIELD naming a column of the data (got %r)" % prev)
            else:
                old = pd.to_numeric(df[prev], errors="coerce").fillna(0.0).values
                preds[prev] = old
                report["comparison"] = comparison(yi, scores[:, 1], old, which, (environ_vars.get("COMPARISON_METRICS") or "all").lower(),
                                                  tables.truthy(environ_vars.get("STATISTICAL_TESTS"), True))
        plot_cmp = old is not None and tables.truthy(environ_vars.get("COMPARISON_PLOTS"), True)
        if plot_cmp:
            series.append(("previous", yi, old))
        report["plots"] = metrics.curve_plots(metrics_dir, series, log) + (comparison_plot(metrics_dir, old, scores[:, 1]) if plot_cmp else [])
    preds.to_csv(os.path.join(eval_dir, "eval_predictions.csv"), index=False)
    metrics.write_report(metrics_dir, report, log)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", "label"),
        "EVAL_METRIC_CHOICES": os.environ.get("EVAL_METRIC_CHOICES", ""),
        "COMPARISON_MODE": os.environ.get("COMPARISON_MODE", ""),
        "PREVIOUS_SCORE_FIELD": os.environ.get("PREVIOUS_SCORE_FIELD", ""),
        "COMPARISON_METRICS": os.environ.get("COMPARISON_METRICS", ""),
        "STATISTICAL_TESTS": os.environ.get("STATISTICAL_TESTS", ""),
        "COMPARISON_PLOTS": os.environ.get("COMPARISON_PLOTS", ""),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUTPUT_DIR, "metrics_output": METRICS_DIR}, env, args)
