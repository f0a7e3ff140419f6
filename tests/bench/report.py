"""Turns the bench results (one JSON file per benchmark) into a table on
stdout and report.json. Usage: report.py RESULTS_DIR REPORT_JSON"""
import json
import os
import sys

res_dir, report_path = sys.argv[1], sys.argv[2]


def load(name):
    p = os.path.join(res_dir, name)
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ratio(a, b):
    return round(a / b, 4) if a is not None and b else None


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "GAP")


rows, targets = [], []
rep = {"meta": load("meta.json")}


def row(section, metric, value, ref="", note=""):
    rows.append((section, metric, value, ref, note))


def fmt(v, unit="", nd=2):
    if v is None:
        return "-"
    return ("%." + str(nd) + "f%s") % (v, unit)


# ---- 1. loop
c, s = load("loop_c.json"), load("loop_sdk.json")
cru, sru = load("loop_c.rusage.json"), load("loop_sdk.rusage.json")
if c:
    loop = {"c": c, "sdk": s, "c_process": cru, "sdk_process": sru}
    cpu_ratio = ratio(c["cpu_ms_per_loop"], s and s["cpu_ms_per_loop"])
    rss_ratio = ratio(cru and cru["maxrss_kb"], sru and sru["maxrss_kb"])
    proc_cpu_ratio = ratio(cru and cru["cpu_ms"], sru and sru["cpu_ms"])
    loop.update(cpu_ratio=cpu_ratio, rss_ratio=rss_ratio, process_cpu_ratio=proc_cpu_ratio)
    rep["loop"] = loop
    n = c["n"]
    row("1 loop", "client CPU per loop (loop only)", fmt(c["cpu_ms_per_loop"], " ms", 2),
        "SDK " + fmt(s and s["cpu_ms_per_loop"], " ms", 2), "ratio " + fmt(cpu_ratio, "", 3))
    row("1 loop", "client CPU, whole process", fmt(cru and cru["cpu_ms"], " ms", 0),
        "SDK " + fmt(sru and sru["cpu_ms"], " ms", 0), "ratio " + fmt(proc_cpu_ratio, "", 3))
    row("1 loop", "peak RSS (ru_maxrss)", fmt(cru and cru["maxrss_kb"] / 1024, " MiB", 1),
        "SDK " + fmt(sru and sru["maxrss_kb"] / 1024, " MiB", 1), "ratio " + fmt(rss_ratio, "", 3))
    fl = load("rss_floor.json")
    if fl:
        loop["rss_floor_kb"] = fl["hwm_kb"]
        row("1 loop", "peak RSS floor: bench binary, libcurl initialised, no call",
            fmt(fl["hwm_kb"] / 1024, " MiB", 1),
            "SDK before its loop " + fmt(s and s["hwm_kb_before_loop"] / 1024, " MiB", 1),
            "floor / SDK peak " + fmt(ratio(fl["hwm_kb"], sru and sru["maxrss_kb"]), "", 3))
    row("1 loop", "wall per loop p50 (emulator-bound)", fmt(c["loop_wall_ms"]["p50"], " ms", 1),
        "SDK " + fmt(s and s["loop_wall_ms"]["p50"], " ms", 0), "N=%d" % n)
    fo, foru = load("loop_floor.json"), load("loop_floor.rusage.json")
    fo2, foru2 = load("loop_floor2.json"), load("loop_floor2.rusage.json")
    if fo and fo2:
        # before and after the library's loop: the mean of the two
        fo = dict(fo, n=fo["n"] + fo2["n"], requests=fo["requests"] + fo2["requests"],
                  conns=fo["conns"] + fo2["conns"],
                  cpu_ms_per_loop=(fo["cpu_ms_per_loop"] + fo2["cpu_ms_per_loop"]) / 2,
                  loop_wall_ms={"p50": (fo["loop_wall_ms"]["p50"] + fo2["loop_wall_ms"]["p50"]) / 2,
                                "p50_before": fo["loop_wall_ms"]["p50"],
                                "p50_after": fo2["loop_wall_ms"]["p50"]})
        if foru and foru2 and foru2["maxrss_kb"] > foru["maxrss_kb"]:
            foru = foru2
    if fo:
        # the emulator's log poll interval (wsfollow.POLL_S): the output of
        # a command reaches a follower at the next 20 ms tick
        poll_ms = 20.0
        floor = fo["loop_wall_ms"]["p50"] + poll_ms
        gap = c["loop_wall_ms"]["p50"] - floor
        loop.update(floor=fo, floor_process=foru, floor_wall_p50_ms=round(floor, 3),
                    wall_gap_to_floor_ms=round(gap, 3))
        row("1 loop", "wall p50 floor: same requests back to back + 20 ms log poll",
            fmt(floor, " ms", 1), "back to back %s%s" % (
                fmt(fo["loop_wall_ms"]["p50"], " ms", 1),
                " (%.1f before, %.1f after)" % (fo["loop_wall_ms"]["p50_before"],
                                                fo["loop_wall_ms"]["p50_after"])
                if "p50_before" in fo["loop_wall_ms"] else ""),
            "library - floor %+.1f ms" % gap)
        row("1 loop", "floor client CPU per loop / peak RSS",
            "%s / %s" % (fmt(fo["cpu_ms_per_loop"], " ms", 2),
                         fmt(foru and foru["maxrss_kb"] / 1024, " MiB", 1)),
            "%.1f req / %.2f conns per loop" % (fo["requests"] / fo["n"], fo["conns"] / fo["n"]),
            "minimal libcurl client")
        targets.append(("loop wall p50 within 10 ms of the floor", "%+.1f ms" % gap,
                        verdict(gap <= 10)))
    row("1 loop", "HTTP requests / TCP conns per loop",
        "%.1f / %.2f" % (c["requests"] / n, c["conns"] / n),
        "SDK %.1f / %.2f" % (s["requests"] / n, s["conns"] / n) if s else "SDK -",
        "conns include 1 WebSocket per loop")
    fl_kb = (load("rss_floor.json") or {}).get("hwm_kb")
    targets.append(("CPU per loop <= 1/10 of SDK", fmt(cpu_ratio, "", 3), verdict(cpu_ratio and cpu_ratio <= 0.1)))
    # the floor client's two runs, highest first: their spread is the noise
    runs = sorted((r["maxrss_kb"] for r in (load("loop_floor.rusage.json"),
                                            load("loop_floor2.rusage.json")) if r), reverse=True)
    # The issue asks for the libcurl floor, not a tenth of the SDK: the floor client itself
    # is above a tenth, so that ratio is shown beside it as information only.
    floor_sdk = ratio(runs[0] if runs else None, sru and sru["maxrss_kb"])
    targets.append(("peak RSS / SDK's (the floor client's own: %s)" % fmt(floor_sdk, "", 3),
                    fmt(rss_ratio, "", 3), "info"))
    if cru and (fl_kb or runs):
        over = []
        if runs:
            over.append("%s of the floor client's runs (%s KiB)" % (
                "-".join(fmt(ratio(cru["maxrss_kb"], k), "", 3) for k in runs),
                " / ".join("%+d" % (cru["maxrss_kb"] - k) for k in runs)))
        if fl_kb:
            over.append("+%.1f MiB over libcurl init only" % ((cru["maxrss_kb"] - fl_kb) / 1024))
        targets.append(("peak RSS at the libcurl floor", "; ".join(over), "info"))

# ---- 2. latency
ll, le = load("latency_local.json"), load("latency_emu.json")
rep["latency"] = {"local": ll, "daytona_emulator": le}
for name, d in (("local executor", ll), ("daytona (emulator)", le)):
    if d:
        L = d["latency_ms"]
        row("2 log latency", name + " p50 / p99", "%.3f / %.3f ms" % (L["p50"], L["p99"]),
            "", "%d lines, every %d us" % (L["n"], d["interval_us"]))
if ll:
    targets.append(("local log latency p99 < 5 ms", fmt(ll["latency_ms"]["p99"], " ms", 3),
                    verdict(ll["latency_ms"]["p99"] < 5)))

# ---- 3. local
lo = load("local.json")
if lo:
    rep["local"] = lo
    a, e = lo["acquire_ms"], lo["exec_true_ms"]
    fp, ft, fs, fu = (lo["floor_helper_probe_ms"], lo["floor_spawn_true_ms"],
                      lo["floor_sh_c_true_ms"], lo["floor_unshare_Urpfn_true_ms"])
    row("3 local", "acquire (cached snapshot -> started) p50 / p99",
        "%.1f / %.1f ms" % (a["p50"], a["p99"]),
        "floor helper probe %.1f / %.1f ms" % (fp["p50"], fp["p99"]), "ns + overlay mount")
    row("3 local", "exec `true` in a session p50 / p99", "%.1f / %.1f ms" % (e["p50"], e["p99"]),
        "floor fork+exec %.2f / %.2f ms" % (ft["p50"], ft["p99"]),
        "sh -c %.2f, unshare -Urpfn %.2f ms" % (fs["p50"], fu["p50"]))
    row("3 local", "sandbox delete p50", fmt(lo["delete_ms"]["p50"], " ms", 1), "", "")
    gap = e["p50"] - ft["p50"]
    lo["exec_gap_to_floor_ms"] = round(gap, 3)
    targets.append(("local acquire p50 < 20 ms", fmt(a["p50"], " ms", 1), verdict(a["p50"] < 20)))
    targets.append(("exec `true` within 3 ms of fork+exec floor (p50)", "+" + fmt(gap, " ms", 1),
                    verdict(gap <= 3)))

# ---- 4. scale
for key, fname in (("daytona (emulator)", "scale_emu.json"), ("local executor", "scale_local.json")):
    d = load(fname)
    if not d:
        continue
    rep.setdefault("scale", {})[key] = d
    for lv in d["levels"]:
        note = ""
        if "emulator" in key:
            http_req = lv["requests"] - lv["websockets"]
            http_conn = lv["conns"] - lv["websockets"]
            note = "%d HTTP req on %d TCP conns (+%d ws)" % (http_req, http_conn, lv["websockets"])
        row("4 scale " + key.split()[0], "%2d sessions: loops/s" % lv["concurrency"],
            "%.1f" % lv["loops_per_s"], "p50 %.0f ms" % lv["loop_ms"]["p50"],
            note + ("; %d FAILED" % lv["failures"] if lv["failures"] else ""))

# ---- 5. xfer
x = load("xfer.json")
if x and x["runs"]:
    rep["xfer"] = x
    best = {}
    for k in x["runs"][0]:
        vals = [r[k] for r in x["runs"]]
        best[k] = (max if k.endswith("mb_s") else min)(vals)
    x["best"] = best
    row("5 transfer", "%d MiB upload MB/s" % x["mib"], fmt(best["lib_up_mb_s"], "", 0),
        "curl -F " + fmt(best["curl_up_mb_s"], "", 0),
        "CPU %.0f vs %.0f ms" % (best["lib_up_cpu_ms"], best["curl_up_cpu_ms"]))
    row("5 transfer", "%d MiB download MB/s" % x["mib"], fmt(best["lib_down_mb_s"], "", 0),
        "curl " + fmt(best["curl_down_mb_s"], "", 0),
        "CPU %.0f vs %.0f ms" % (best["lib_down_cpu_ms"], best["curl_down_cpu_ms"]))
    row("5 transfer", "peak RSS up / down", "%.1f / %.1f MiB" % (best["lib_up_hwm_kb"] / 1024,
                                                               best["lib_down_hwm_kb"] / 1024),
        "curl %.1f / %.1f MiB" % (best["curl_up_maxrss_kb"] / 1024, best["curl_down_maxrss_kb"] / 1024),
        "lib: VmHWM of the phase")

# ---- 7. pool (pool.sh: one JSON line per run)
def load_lines(name):
    try:
        with open(os.path.join(res_dir, name)) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []


def pool_counts(d):
    if "requests" not in d:
        return ""
    n = d["validations"]
    # every WebSocket is a TCP connection of its own: the rest carry the
    # plain HTTP requests (a reused connection is not counted again)
    return ("%.1f HTTP req on %.2f new TCP conns + %.1f WebSockets; %d sandboxes created; "
            "server CPU %.1f ms") % (
        (d["requests"] - d["websockets"]) / n, (d["conns"] - d["websockets"]) / n,
        d["websockets"] / n, d["sandboxes_created"], d.get("emu_cpu_ms_per_validation", -1))


def machine_cpu(d):
    """CPU of the whole machine per validation: the client's and the
    emulator's (which shares the cores: the bound when it saturates)"""
    e = d.get("emu_cpu_ms_per_validation")
    return None if e is None else d["cpu_ms_per_validation"] + e


def switches(d):
    """voluntary/involuntary context switches per validation: the window's
    when the client counts them, else its whole process's (pool.sh)"""
    v, i = d.get("vol_cs_per_validation"), d.get("invol_cs_per_validation")
    if v is None:
        v, i = d.get("proc_vol_cs_per_validation"), d.get("proc_invol_cs_per_validation")
    return "-" if v is None else "%.1f/%.1f" % (v, i)


def blocking_bound(d, s, f, ft):
    """issue 40: the same requests by a thread per validation blocking in
    curl_easy_perform (floor_threads) is the least any implementation of a
    blocking API (dval_validate on the caller's thread) can pay"""
    cpu = {k: x["cpu_ms_per_validation"] for k, x in
           (("floor", f), ("floor_threads", ft), ("c", d), ("sdk", s))}
    tr, cr = ratio(cpu["floor_threads"], cpu["sdk"]), ratio(cpu["c"], cpu["sdk"])
    rep["pool"]["ratios"][-1].update({"floor_threads_cpu_ms": cpu["floor_threads"],
                                      "floor_threads_cpu_ratio": tr})
    row("7 pool emu floor_threads", "%-7s %2d concurrent: client CPU ms/val" % (
        d["isolation"], d["concurrency"]), "%.2f" % cpu["floor_threads"],
        "thread per validation, blocking curl_easy_perform; %.1f/s%s" % (
            ft["per_s"], "; %d FAILED" % ft["failed"] if ft["failed"] else ""),
        "CPU/val floor %.2f, floor_threads %.2f, C %.2f, SDK %.2f ms: floor_threads/SDK %s, "
        "C/SDK %s (target <= 0.1x); vol/invol switches/val floor %s, floor_threads %s, "
        "C %s, SDK %s" % (cpu["floor"], cpu["floor_threads"], cpu["c"], cpu["sdk"],
                          fmt(tr, "x", 3), fmt(cr, "x", 3), switches(f), switches(ft),
                          switches(d), switches(s)))


pool = load_lines("pool.jsonl")
if pool:
    rep["pool"] = {"runs": pool, "ratios": []}
    spawn = {d["parallel"]: d for d in pool if d["executor"] == "machine"}
    pool = [d for d in pool if d["executor"] != "machine"]
    by = {(d["executor"], d["isolation"], d["concurrency"]): d for d in pool
          if not d.get("warm")}
    warm = {(d["executor"], d["isolation"], d["concurrency"]): d for d in pool
            if d.get("warm")}
    for d in sorted(spawn.values(), key=lambda d: d["parallel"]):
        one = spawn.get(1)
        row("7 pool machine", "process creations/s, %d spawner%s at once" % (
            d["parallel"], "s" if d["parallel"] > 1 else ""), "%.0f" % d["per_s"],
            "CPU %.2f ms per process" % d["cpu_ms_per_spawn"],
            "%s of one spawner's rate" % fmt(ratio(d["per_s"], one["per_s"]), "x", 2)
            if one and d is not one else "a local validation starts ~5 (helper, its 2 children, sh, the program)")
    for d in pool:
        if d["executor"] in ("sdk", "floor", "floor_threads"):
            continue
        key = "local" if d["executor"] == "local" else "emu C"
        row("7 pool " + key, "%-7s %2d concurrent%s: validations/s" % (
            d["isolation"], d["concurrency"], ", warm pool" if d.get("warm") else ""),
            "%.1f" % d["per_s"], "p50 %d / p99 %d ms, CPU %.1f ms/val" % (
                d["p50_ms"], d["p99_ms"], d["cpu_ms_per_validation"]),
            ("per validation: " + pool_counts(d) if pool_counts(d) else "")
            + ("; %d FAILED" % d["failed"] if d["failed"] else ""))
        s = by.get(("sdk", d["isolation"], d["concurrency"]))
        if d["executor"] != "daytona" or not s:
            continue
        r = ratio(d["per_s"], s["per_s"])
        rep["pool"]["ratios"].append({"isolation": d["isolation"], "concurrency": d["concurrency"],
                                      "c_per_s": d["per_s"], "sdk_per_s": s["per_s"], "ratio": r})
        row("7 pool emu SDK", "%-7s %2d concurrent: validations/s" % (d["isolation"], d["concurrency"]),
            "%.1f" % s["per_s"], "p50 %d / p99 %d ms, CPU %.1f ms/val" % (
                s["p50_ms"], s["p99_ms"], s["cpu_ms_per_validation"]),
            "C/SDK %s (client + server CPU per validation: C %s, SDK %s); per validation: %s%s" % (
                fmt(r, "x", 2), fmt(machine_cpu(d), " ms", 1), fmt(machine_cpu(s), " ms", 1),
                pool_counts(s),
                                                "; %d FAILED" % s["failed"] if s["failed"] else ""))
        f = by.get(("floor", d["isolation"], d["concurrency"]))
        if f:
            # issue 40: the client's CPU per validation <= 0.1x the SDK's;
            # the floor (curl_floor.c) is what plain libcurl pays for the
            # same requests, so below it no libcurl client can go
            cr, fr = (ratio(x["cpu_ms_per_validation"], s["cpu_ms_per_validation"])
                      for x in (d, f))
            rep["pool"]["ratios"][-1].update({"c_cpu_ms": d["cpu_ms_per_validation"],
                                              "floor_cpu_ms": f["cpu_ms_per_validation"],
                                              "sdk_cpu_ms": s["cpu_ms_per_validation"],
                                              "c_cpu_ratio": cr, "floor_cpu_ratio": fr})
            row("7 pool emu floor", "%-7s %2d concurrent: client CPU ms/val" % (
                d["isolation"], d["concurrency"]), "%.2f" % f["cpu_ms_per_validation"],
                "plain libcurl, same requests (curl_floor.c); %.1f/s%s" % (
                    f["per_s"], "; %d FAILED" % f["failed"] if f["failed"] else ""),
                "client CPU/val floor %.2f, C %.2f, SDK %.2f ms: C/SDK %s, floor/SDK %s "
                "(target <= 0.1x)" % (f["cpu_ms_per_validation"], d["cpu_ms_per_validation"],
                                      s["cpu_ms_per_validation"], fmt(cr, "x", 3), fmt(fr, "x", 3)))
            ft = by.get(("floor_threads", d["isolation"], d["concurrency"]))
            if ft:
                blocking_bound(d, s, f, ft)
        if d["concurrency"] == 64:
            # the emulator shares the client's cores: its own CPU per validation
            # bounds any client's rate, which says whether 5x was reachable at all
            cores = (rep["meta"] or {}).get("nproc") or os.cpu_count() or 1
            e = d.get("emu_cpu_ms_per_validation")
            cap = ("; 5x is %.0f/s, and the emulator's own %.1f ms of CPU per C validation "
                   "lets no client past %.0f/s on %d cores" % (5 * s["per_s"], e, cores * 1000 / e, cores)
                   if e else "")
            targets.append(("pool %s, 64 concurrent on the emulator >= 5x the SDK" % d["isolation"],
                            fmt(r, "x", 2) + cap, verdict(r is not None and r >= 5)))
    # the target is a pool's steady state (warm); the cold window (a new
    # pool: its first validations create the slots' sandboxes) beside it
    lo, lw = by.get(("local", "sandbox", 64)), warm.get(("local", "sandbox", 64))
    if lw or lo:
        t = lw or lo
        many = max(spawn) if spawn else 0
        scale = ("; this machine starts %.0f processes/s with one spawner, %.0f with %d "
                 "at once" % (spawn[1]["per_s"], spawn[many]["per_s"], many)
                 if 1 in spawn and many > 1 else "")
        targets.append(("local pool, 64 concurrent isolation=sandbox >= 200/s",
                        "%.1f/s %s%s" % (t["per_s"], "warm pool (cold %s)" % (
                            "%.1f/s" % lo["per_s"] if lo else "-") if lw else "cold pool", scale),
                        verdict(t["per_s"] >= 200 and not t["failed"])))

# ---- 8. registry pull + unpack (pull.sh)
pl = load("pull.json")
if pl and pl["lib_ms"] and pl["tools_ms"]:
    rep["pull"] = pl
    lib, tools = min(pl["lib_ms"]), min(pl["tools_ms"])
    r = ratio(lib, tools)
    row("8 pull", "pull + unpack, %d layers, %d MB (%s)" % (pl["layers"], pl["mb"], pl["image"]),
        fmt(lib, " ms", 0), "skopeo copy + umoci unpack " + fmt(tools, " ms", 0),
        "library/tools %s (best of %d each)" % (fmt(r, "x", 2), len(pl["lib_ms"])))
    targets.append(("registry pull + unpack within 1.2x of skopeo + umoci", fmt(r, "x", 2),
                    verdict(r is not None and r <= 1.2)))

# ---- 9. database services (db.sh)
db = load("db.json")
if db:
    rep["db"] = db
    pv, st, va = db["provision"], db["start"], db["validate"]

    def p(v, q=50):
        v = sorted(v)
        return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))] if v else None
    row("9 db", "fresh postgres database, 0.2 s apart, p50 / p99",
        fmt(p(pv["spaced_ms"]), " ms", 1) + " / " + fmt(p(pv["spaced_ms"], 99), " ms", 1),
        "perl start " + fmt(p(pv["perl_ms"]), " ms", 1),
        "wrapper start, copy handed out, program, release asked")
    row("9 db", "fresh postgres database, back to back, p50 / p99",
        fmt(p(pv["back_to_back_ms"]), " ms", 1) + " / " +
        fmt(p(pv["back_to_back_ms"], 99), " ms", 1), "", "spare copies made while idle")
    row("9 db", "fresh sqlite copy p50", fmt(p(pv["sqlite_ms"]), " ms", 1), "", "")
    added = [r for r in st["first_database_ms"]]
    row("9 db", "new sandbox: acquire p50 / first database after it p50",
        fmt(p(st["acquire_ms"]), " ms", 0) + " / " + fmt(p(added), " ms", 0),
        "without services: acquire " + fmt(p(st["plain_acquire_ms"]), " ms", 0) +
        ", first exec " + fmt(p(st["plain_first_exec_ms"]), " ms", 0), "n=%d" % len(added))
    row("9 db", "validation of `true`, warm sandbox, p50", fmt(p(va["with_services_ms"]), " ms", 1),
        "without services " + fmt(p(va["without_ms"]), " ms", 1), "")
    targets.append(("fresh database per validation <= 100 ms p50 (running service)",
                    fmt(p(pv["spaced_ms"]), " ms", 1), verdict(p(pv["spaced_ms"]) <= 100)))
    extra = p(added) - p(st["plain_first_exec_ms"]) + p(st["acquire_ms"]) - p(st["plain_acquire_ms"])
    targets.append(("the service's start adds <= 1.5 s to a sandbox's start",
                    fmt(extra / 1000, " s", 2), verdict(extra <= 1500)))

# ---- 12. a batch of N equal programs on N slots (batch.sh)
bt = load("batch.json")
if bt:
    rep["batch"] = bt
    best = min(bt["warm_ms"]) if bt["warm_ms"] else None
    row("12 batch", "%d x %s s on %d slots (run --jobs %d): cold / warm best" %
        (bt["n"], bt["seconds"], bt["n"], bt["n"]),
        fmt(bt["cold_ms"], " ms", 0) + " / " + fmt(best, " ms", 0),
        "one program %s s" % bt["seconds"], "warm: " + ", ".join(map(str, bt["warm_ms"])) + " ms")
    if bt["n"] == 6 and bt["seconds"] == 3:
        targets.append(("batch of 6 x 3 s on 6 slots <= 3.8 s warm", fmt(best, " ms", 0),
                        verdict(best is not None and best <= 3800)))

rep["targets"] = [{"target": t, "value": v, "status": st} for t, v, st in targets]
with open(report_path, "w") as f:
    json.dump(rep, f, indent=1)

w = [max(len(str(r[i])) for r in rows) if rows else 5 for i in range(5)]
hdr = ("section", "metric", "value", "reference (same run)", "note")
w = [max(w[i], len(hdr[i])) for i in range(5)]
line = "| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(hdr)) + " |"
print(line)
print("|" + "|".join("-" * (w[i] + 2) for i in range(5)) + "|")
for r in rows:
    print("| " + " | ".join(str(v).ljust(w[i]) for i, v in enumerate(r)) + " |")
print()
print("| target | value | status |")
print("|---|---|---|")
for t, v, st in targets:
    print("| %s | %s | %s |" % (t, v, st))
print()
print("report: " + report_path)
