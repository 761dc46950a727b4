"""mlfkit against ONNX Runtime on the benchmark models (run by bench/run_model_bench.sh).

For each model: `mlf export` (timed, archive size), an output check (`mlf run` on a
random input against ONNX Runtime's output for the same input, rtol 1e-3 / atol 1e-4),
then rounds of `mlf bench --json` and bench/ort/time_session.js, interleaved (the
order alternates between rounds), each with its own warm-up. A figure is the median
over the rounds of each round's p50. Prints the machine facts, a table and one JSON
line (only the JSON line with --json). Exit status 1 when any model failed to
export or run, lacks a figure, or its outputs differ from ONNX Runtime's; 2 on bad
usage.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ALL_MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "mobilenet_v2_int8", "lenet5", "mlp"]
RTOL = 1e-3
ATOL = 1e-4
# int8 models: two correct implementations round differently in each of ~50
# requantisations, so outputs are compared by their correlation with ONNX
# Runtime's. (On int8 MobileNetV2 with random weights, mlfkit, ONNX Runtime
# and PyTorch agree pairwise with correlation 0.984-0.986 and differ by a
# median of 4 output steps.)
MIN_INT8_CORRELATION = 0.95
# CPU flags that decide which kernels can run (issue 13's ISA variants).
ISA_FLAGS = ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
             "avx512_bf16", "amx_tile", "asimd"]


class Failure(Exception):
    """A model step that failed; its message goes into the table and the JSON."""


def positive_int(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("must be a whole number of at least 1, got '%s'" % text)
    return int(text)


def thread_list(text):
    counts = text.split(",")
    if not all(c.isdigit() and int(c) >= 1 for c in counts):
        raise argparse.ArgumentTypeError("must be counts of at least 1 separated by commas, "
                                         "got '%s'" % text)
    return [int(c) for c in counts]


def model_list(text):
    models = text.split(",")
    unknown = [m for m in models if m not in ALL_MODELS]
    if unknown or not text:
        raise argparse.ArgumentTypeError("unknown model '%s' (known: %s)"
                                         % (",".join(unknown) or text, ",".join(ALL_MODELS)))
    return models


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run_model_bench.sh", description=__doc__.split("\n")[0])
    p.add_argument("--mlf", required=True, help="the mlf binary")
    p.add_argument("--models-dir", required=True, help="directory of MODEL.onnx files")
    p.add_argument("--time-session", required=True, help="bench/ort/time_session.js")
    p.add_argument("--models", type=model_list, default=ALL_MODELS)
    p.add_argument("--iterations", type=positive_int, default=50)
    p.add_argument("--warmup", type=positive_int, default=10)
    p.add_argument("--rounds", type=positive_int, default=3)
    p.add_argument("--threads", type=thread_list, default=[1])
    p.add_argument("--json", action="store_true")
    p.add_argument("--work-dir", help="keep archives, inputs and outputs here")
    return p.parse_args(argv)


def run(command, what):
    """Runs a command; returns its stdout, or raises Failure naming `what`."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        detail = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise Failure("%s failed (exit %d): %s" % (what, result.returncode,
                                                    detail[-1] if detail else "no output"))
    return result.stdout


def run_json(command, what):
    out = run(command, what)
    try:
        return json.loads(out)
    except ValueError:
        raise Failure("%s printed no JSON: %s" % (what, out.strip()[:200]))


def figure(report, what, *keys):
    """report[keys[0]][keys[1]]...: a positive number, or Failure naming it."""
    value = report
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise Failure("%s printed no %s" % (what, ".".join(keys)))
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise Failure("%s printed %s = %r, not a positive number" % (what, ".".join(keys), value))
    return value


def progress(line):
    """Long runs (ResNet18 takes minutes on a busy machine) say where they are."""
    sys.stderr.write("model_bench: %s\n" % line)
    sys.stderr.flush()


def machine_facts():
    facts = {"cpu_model": None, "cores": os.cpu_count(), "isa_flags": []}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and facts["cpu_model"] is None:
                    facts["cpu_model"] = value.strip()
                elif key in ("flags", "Features") and not facts["isa_flags"]:
                    present = set(value.split())
                    facts["isa_flags"] = [f for f in ISA_FLAGS if f in present]
    except OSError:
        pass
    return facts


def load_average():
    return [round(v, 2) for v in os.getloadavg()]


def mlf_has_intra_op_threads(mlf):
    """Today `mlf bench --threads T` runs T concurrent executors, which is no
    latency figure to set against ONNX Runtime's intra-op threads; once it
    means intra-op threads (issue 13), the harness passes it on."""
    help_text = run([mlf, "bench", "--help"], "mlf bench --help")
    return "concurrent executors" not in help_text


def inspect(mlf, archive):
    meta = run_json([mlf, "inspect", archive, "--json"], "mlf inspect")
    modules = meta["metadata"]["modules"]
    module = modules[sorted(modules)[0]]
    macs = sum(op.get("macs", 0) for op in module.get("operators", []))
    return module["inputs"], macs


def check_outputs(args, model, onnx, archive, inputs, work):
    """Runs both on one random input; returns (match, worst absolute error)."""
    if len(inputs) != 1 or inputs[0]["dtype"] != "float32":
        raise Failure("expected one float32 input, got %d" % len(inputs))
    x = np.random.default_rng(0).standard_normal(inputs[0]["shape"]).astype(np.float32)
    input_file = os.path.join(work, model + ".input.npy")
    np.save(input_file, x)
    ort_dir = os.path.join(work, model + ".ort")
    run(["node", args.time_session, onnx, "--iterations", "1", "--warmup", "1",
         "--input", input_file, "--output-dir", ort_dir], "ONNX Runtime on the check input")
    if model.endswith("_int8"):
        return check_int8_outputs(args, archive, inputs, input_file, ort_dir, work)
    # mlf run compares DIR/<c_name>.npy; ONNX Runtime wrote DIR/<name>.npy.
    command = [args.mlf, "run", archive, "--input", "%s=%s" % (inputs[0]["name"], input_file),
               "--expect-dir", ort_dir, "--rtol", str(RTOL), "--atol", str(ATOL), "--json"]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        report = json.loads(result.stdout)
        worst = max(o["comparison"]["abs_error"] for o in report["outputs"])
        match = report["ok"] is True and result.returncode == 0
    except (ValueError, KeyError, TypeError):
        detail = result.stderr.strip().splitlines()
        raise Failure("mlf run --expect-dir failed (exit %d): %s"
                      % (result.returncode, detail[-1] if detail else "no comparison printed"))
    return match, worst


def check_int8_outputs(args, archive, inputs, input_file, ort_dir, work):
    """An int8 model's output against ONNX Runtime's: (match, worst absolute
    error), match when their correlation reaches MIN_INT8_CORRELATION."""
    out_dir = os.path.join(work, "int8.mlfkit")
    run([args.mlf, "run", archive, "--input", "%s=%s" % (inputs[0]["name"], input_file),
         "--output-dir", out_dir], "mlf run")
    got = [np.load(os.path.join(out_dir, f)) for f in sorted(os.listdir(out_dir))]
    want = [np.load(os.path.join(ort_dir, f)) for f in sorted(os.listdir(ort_dir))]
    if len(got) != 1 or len(want) != 1 or got[0].shape != want[0].shape:
        raise Failure("int8 check: expected one output of the same shape from both")
    a, b = got[0].ravel().astype(np.float64), want[0].ravel().astype(np.float64)
    correlation = float(np.corrcoef(a, b)[0, 1])
    progress("int8 output: correlation %.4f with ONNX Runtime's" % correlation)
    return correlation >= MIN_INT8_CORRELATION, float(np.max(np.abs(a - b)))


def time_mlfkit(args, archive, threads, intra_op):
    command = [args.mlf, "bench", archive, "--json", "--iterations", str(args.iterations),
               "--warmup", str(args.warmup)]
    if intra_op:
        command += ["--threads", str(threads)]
    report = run_json(command, "mlf bench")
    return (figure(report, "mlf bench", "latency_us", "p50") / 1000.0,
            figure(report, "mlf bench", "latency_us", "p90") / 1000.0)


def time_ort(args, onnx, input_file, threads):
    report = run_json(["node", args.time_session, onnx, "--threads", str(threads),
                       "--iterations", str(args.iterations), "--warmup", str(args.warmup),
                       "--input", input_file], "ONNX Runtime timing")
    what = "ONNX Runtime timing"
    return (figure(report, what, "latency_ms", "p50"), figure(report, what, "latency_ms", "p90"),
            report.get("ort_version"))


def bench_model(args, model, work, intra_op, facts):
    entry = {"model": model, "ok": False, "error": None, "runs": []}
    try:
        onnx = os.path.join(args.models_dir, model + ".onnx")
        if not os.path.isfile(onnx):
            raise Failure("no model file %s" % onnx)
        archive = os.path.join(work, model + ".mlf.tar")
        start = time.monotonic()
        run([args.mlf, "export", onnx, "-o", archive], "mlf export")
        entry["export_seconds"] = round(time.monotonic() - start, 2)
        entry["archive_bytes"] = os.path.getsize(archive)
        inputs, entry["macs"] = inspect(args.mlf, archive)
        match, worst = check_outputs(args, model, onnx, archive, inputs, work)
        entry["outputs_match"] = match
        entry["max_abs_error"] = worst
        progress("%s: exported in %.1f s, outputs %s (max abs error %.2g)"
                 % (model, entry["export_seconds"], "match" if match else "DIFFER", worst))
        input_file = os.path.join(work, model + ".input.npy")
        for threads in args.threads:
            rounds = {"mlfkit_p50": [], "mlfkit_p90": [], "ort_p50": [], "ort_p90": []}
            for r in range(args.rounds):
                # Alternating order spreads a drifting machine load over both.
                steps = ["mlfkit", "ort"] if r % 2 == 0 else ["ort", "mlfkit"]
                for step in steps:
                    if step == "mlfkit":
                        p50, p90 = time_mlfkit(args, archive, threads, intra_op)
                    else:
                        p50, p90, facts["ort_version"] = time_ort(args, onnx, input_file, threads)
                    rounds[step + "_p50"].append(p50)
                    rounds[step + "_p90"].append(p90)
            mlfkit = statistics.median(rounds["mlfkit_p50"])
            ort = statistics.median(rounds["ort_p50"])
            progress("%s, %d thread%s: mlfkit p50 %.4g ms, ONNX Runtime p50 %.4g ms"
                     % (model, threads, "" if threads == 1 else "s", mlfkit, ort))
            entry["runs"].append({
                "threads": threads,
                "mlfkit_threads": threads if intra_op else 1,
                "mlfkit_p50_ms": mlfkit,
                "mlfkit_p90_ms": statistics.median(rounds["mlfkit_p90"]),
                "ort_p50_ms": ort,
                "ort_p90_ms": statistics.median(rounds["ort_p90"]),
                "ratio": mlfkit / ort,
                "mlfkit_gmacs": entry["macs"] / 1e9 / (mlfkit / 1e3),
                "ort_gmacs": entry["macs"] / 1e9 / (ort / 1e3),
                "mlfkit_round_p50_ms": rounds["mlfkit_p50"],
                "ort_round_p50_ms": rounds["ort_p50"],
            })
        entry["ok"] = match
        if not match:
            entry["error"] = ("outputs differ from ONNX Runtime's (worst absolute error %.3g; "
                              "rtol %g, atol %g)" % (worst, RTOL, ATOL))
    except Failure as e:
        entry["error"] = str(e)
        progress("%s: FAILED: %s" % (model, e))
    return entry


def fmt(value, digits=3):
    if value is None:
        return "-"
    if value >= 100:
        return "%.1f" % value
    return "%.*g" % (digits, value) if value < 1 else "%.2f" % value


def print_report(report):
    m = report["machine"]
    print("date      %s" % report["date"])
    print("cpu       %s, %s cores, flags: %s" % (m["cpu_model"], m["cores"],
                                                 " ".join(m["isa_flags"]) or "-"))
    print("load      %s before, %s after (1, 5, 15 min)"
          % (" ".join(map(str, report["load_before"])), " ".join(map(str, report["load_after"]))))
    s = report["settings"]
    print("settings  ONNX Runtime %s; %d rounds x %d runs after %d warm-up runs each side; "
          "p50 = median of the rounds' p50" % (report["machine"].get("ort_version"),
                                               s["rounds"], s["iterations"], s["warmup"]))
    if not s["mlfkit_intra_op_threads"] and any(t > 1 for t in s["threads"]):
        print("note      mlfkit has no intra-op threads yet: its figures are on 1 thread")
    print()
    print("| model | threads | mlfkit p50 ms | ORT p50 ms | ratio (mlfkit/ORT) "
          "| mlfkit GMAC/s | ORT GMAC/s | outputs |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for e in report["models"]:
        if e["error"] and not e["runs"]:
            print("| %s | - | - | - | - | - | - | FAILED: %s |" % (e["model"], e["error"]))
            continue
        outputs = ("match (max abs error %.2g)" % e["max_abs_error"] if e["outputs_match"]
                   else "DIFFER (max abs error %.2g)" % e["max_abs_error"])
        for r in e["runs"]:
            print("| %s | %d | %s | %s | %.2f | %s | %s | %s |"
                  % (e["model"], r["threads"], fmt(r["mlfkit_p50_ms"]), fmt(r["ort_p50_ms"]),
                     r["ratio"], fmt(r["mlfkit_gmacs"]), fmt(r["ort_gmacs"]), outputs))
    print()
    for e in report["models"]:
        if "export_seconds" in e:
            print("export %-14s %6.1f s, archive %.1f MB, %.1f MMAC per run"
                  % (e["model"], e["export_seconds"], e["archive_bytes"] / 1e6, e["macs"] / 1e6))
    for e in report["models"]:
        if e["error"]:
            print("FAILED %s: %s" % (e["model"], e["error"]))


def main(argv):
    args = parse_args(argv)
    if shutil.which("node") is None:
        sys.stderr.write("model_bench: node not found (scripts/setup.sh installs it)\n")
        return 1
    work = args.work_dir or tempfile.mkdtemp(prefix="model_bench.")
    os.makedirs(work, exist_ok=True)
    try:
        facts = machine_facts()
        facts["ort_version"] = None
        intra_op = mlf_has_intra_op_threads(args.mlf)
        report = {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": facts,
            "load_before": load_average(),
            "settings": {"iterations": args.iterations, "warmup": args.warmup,
                         "rounds": args.rounds, "threads": args.threads,
                         "rtol": RTOL, "atol": ATOL, "mlfkit_intra_op_threads": intra_op},
        }
        report["models"] = [bench_model(args, m, work, intra_op, facts) for m in args.models]
        report["load_after"] = load_average()
        report["ok"] = all(e["ok"] for e in report["models"])
    except Failure as e:
        sys.stderr.write("model_bench: %s\n" % e)
        return 1
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    if not args.json:
        print_report(report)
    print(json.dumps(report, sort_keys=True))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
