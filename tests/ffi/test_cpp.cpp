// Tests of the C++ wrapper (examples/cpp/dval.hpp), built with -std=c++14
// and -std=c++17 against the installed header: lifecycle, live output, JSON
// upload/download, exception from a callback, cancel, dval::validate,
// isolation=sandbox, a C# program ($DVAL_DOTNET_SAMPLE, local executor)
// and dval::pool from 4 threads.
// Everything it creates is deleted (DVAL_RELEASE_DELETE).
// usage: test_cpp local STATE_DIR SRC_DIR [SAMPLE] | test_cpp daytona API_URL SRC_DIR [SAMPLE]
// (SAMPLE: examples/validation/shell)
// exit 0 = passed, 77 = executor not available (skip), 1 = failed.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#if __cplusplus >= 201703L
#include <string_view>
#endif
#include <chrono>

#include "dval.hpp"

namespace {
int failures = 0;
void expect(bool ok, const std::string &what)
{
    std::cout << (ok ? "PASS " : "FAIL ") << what << std::endl;
    if (!ok)
        failures++;
}
bool unavailable(int st)
{
    return st == DVAL_EUNSUPPORTED || st == DVAL_EISOLATION || st == DVAL_ENETWORK ||
           st == DVAL_EEXEC || st == DVAL_ERROR;
}
struct stop_here {};
// examples/validation/shell's result as thread tid
bool sample_ok(const dval::validation_result &r, const std::string &tid)
{
    return r.ok() && r.stdout_text == "sum 1..100 = 5050\n" && r.thread_id == tid &&
           r.result("results.json") ==
               "{\"sum_1_to_100\":5050,\"thread_id\":\"" + tid + "\",\"passed\":true}";
}
// Sandboxes whose name starts with prefix and that are not being destroyed
// (Daytona renames a deleted sandbox DESTROYED_<name>_<ms>).
std::vector<std::string> live_named(dval::client &c, const std::string &prefix)
{
    struct seen {
        std::string prefix;
        std::vector<std::string> live;
    } left{prefix, {}};
    auto each = [](const char *, const char *n, int st, void *ud) -> int {
        auto *l = static_cast<seen *>(ud);
        std::string name = n ? n : "";
        if (!name.empty() && name.compare(0, l->prefix.size(), l->prefix) == 0 &&
            st != DVAL_SANDBOX_DESTROYED && st != DVAL_SANDBOX_DESTROYING)
            l->live.push_back(name);
        return 0;
    };
    dval::detail::check(dval_sandbox_list(c.get(), nullptr, each, &left));
    return left.live;
}
// examples/validation/dotnet through dval::validate: compiled and run in
// a local sandbox, its output on the dotnet channel, its results JSON.
void validate_dotnet(dval::client &c, const std::string &dir)
{
    dval::validation req;
    req.profile = "dotnet";
    req.source_dir = dir;
    req.thread_id = "cpp-cs";
    req.release = DVAL_RELEASE_DELETE;
    std::string live;
    req.on_output = [&](int, dval::bytes_view ch, dval::bytes_view d) {
        live += ch.str() + ":" + d.str();
        return dval::flow::go_on;
    };
    dval::validation_result r = dval::validate(c, req);
    // the program's line last: a build that ran before the snapshot's
    // compile service was up (a full dotnet build) printed its own first
    const std::string line = "fibonacci(50) = 12586269025\n";
    const std::string &out = r.stdout_text;
    expect(r.ok() && out.size() >= line.size() &&
               out.compare(out.size() - line.size(), line.size(), line) == 0,
           "C#: validate compiles and runs the dotnet sample: " + r.stdout_text + r.stderr_text);
    expect(live.find("DOTNET_SANDBOX_COMMAND_EXECUTION_STDOUT:fibonacci(50)") != std::string::npos,
           "C#: output on the DOTNET_ channel");
    expect(r.result("results.json").find("\"fibonacci_50\":12586269025") != std::string::npos,
           "C#: results " + r.results_json);
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::cerr << "usage: test_cpp local STATE_DIR SRC_DIR | test_cpp daytona API_URL SRC_DIR\n";
        return 2;
    }
    const std::string src = argv[3];
    const std::string executor = argv[1];
    // examples/validation/shell (run from the checkout by default)
    const std::string sample = argc > 4 ? argv[4] : "examples/validation/shell";
    const std::string label = "suite=ffi-cpp-" + executor;
    dval::client_config cfg;
    cfg.executor = executor;
    if (executor == "local")
        cfg.state_dir = argv[2];
    else {
        cfg.api_url = argv[2];
        cfg.api_key = "test-key";
        cfg.retry_base_ms = 50;
        cfg.retry_cap_ms = 200;
    }
    cfg.request_timeout_ms = 30000;
    try {
        dval::error bad(0, "");
        try {
            dval::client nope(dval::client_config{"no-such-executor", "", "", "", 0, 0, 0});
        } catch (const dval::error &e) {
            bad = e;
        }
        expect(bad.status() == DVAL_EINVAL, "unknown executor throws DVAL_EINVAL");

        dval::client c(cfg);
        dval::snapshot_ptr snap;
        std::string name = "ffi-cpp-" + executor;
        try {
            snap = c.ensure_snapshot("ffi-cpp-snap", "debian:12-slim");
        } catch (const dval::error &e) {
            if (unavailable(e.status())) {
                std::cout << "SKIP " << executor << ": not available yet: " << e.what() << "\n";
                return 77;
            }
            throw;
        }
        dval::sandbox sb = c.acquire_sandbox(name, "ffi-cpp-snap", DVAL_RELEASE_DELETE);
        expect(sb.state() == DVAL_SANDBOX_STARTED, "sandbox started");
        {
            dval::session s = sb.open_session();
            std::string out, err;
            int code = s.exec("echo hello; echo oops >&2; exit 3",
                              [&](int st, dval::bytes_view, dval::bytes_view d) {
                                  (st == DVAL_STDOUT ? out : err) += d;
                                  return dval::flow::go_on;
                              });
            expect(code == 3 && out == "hello\n" && err == "oops\n", "exec with live output");
#if __cplusplus >= 201703L
            std::string sv_out;
            s.exec("echo sv", [&](int, std::string_view, std::string_view d) {
                sv_out.append(d);
                return dval::flow::go_on;
            });
            expect(sv_out == "sv\n", "C++17: callbacks may take std::string_view");
#endif

            sb.upload("/sandbox/ffi-cpp/in.json", R"({"numbers":[1,2,3]})");
            code = s.exec("cd /sandbox/ffi-cpp && sed s/numbers/values/ in.json > out.json");
            std::string doc = sb.download_json("/sandbox/ffi-cpp/out.json");
            expect(code == 0 && doc.find("\"values\"") != std::string::npos, "upload/download JSON");

            bool caught = false;
            auto t0 = std::chrono::steady_clock::now();
            try {
                s.exec("echo a; sleep 20", [](int, dval::bytes_view, dval::bytes_view) -> dval::flow {
                    throw stop_here{};
                });
            } catch (const stop_here &) {
                caught = true;
            }
            expect(caught && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15),
                   "callback exception stops the call and is rethrown");
            // only dval::flow::stop stops: what a print function returns
            // (an int) does not even compile as a callback
            static_assert(!std::is_constructible<dval::output_fn,
                                                 int (*)(int, dval::bytes_view,
                                                         dval::bytes_view)>::value,
                          "an int-returning callback is refused");
            t0 = std::chrono::steady_clock::now();
            int stopped = 0;
            try {
                s.exec("echo a; sleep 20", [](int, dval::bytes_view, dval::bytes_view) {
                    return dval::flow::stop;
                });
            } catch (const dval::error &e) {
                stopped = e.status();
            }
            expect(stopped != 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15),
                   "dval::flow::stop stops the call");
        }
        {
            dval::session s = sb.open_session();
            std::thread canceler([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
                s.cancel();
            });
            int st = 0;
            try {
                s.exec("sleep 30");
            } catch (const dval::error &e) {
                st = e.status();
            }
            canceler.join();
            expect(st == DVAL_ECANCELED, "cancel from another thread");
            s.close();
        }
        sb.release();
        expect(true, "release (delete)");

        // dval::validate with a plain sh program
        {
            std::ofstream(src + "/run.sh")
                << "echo out; echo err >&2\n"
                   "printf '{\"answer\":42,\"s\":\"a\\\\u00e9\"}' > \"$DVAL_RESULTS_DIR/r.json\"\n"
                   "printf 'caf\\303\\251\\n' > \"$DVAL_RESULTS_DIR/out.txt\"\n"
                   "printf 'a\\000b\\377' > \"$DVAL_RESULTS_DIR/bin.dat\"\n";
            dval::validation req;
            req.profile = "shell";
            req.source_dir = src;
            req.thread_id = "cpp-t1";
            req.sandbox_name = "ffi-cpp-v-" + executor;
            req.release = DVAL_RELEASE_DELETE;
            std::string live;
            req.on_output = [&](int, std::string ch, dval::bytes_view d) {
                live += ch + ":" + d.str();
                return dval::flow::go_on;
            };
            dval::validation_result r = dval::validate(c, req);
            expect(r.ok() && r.exit_code == 0 && r.thread_id == "cpp-t1", "validate ok, exit 0");
            expect(r.stdout_text == "out\n" && r.stderr_text == "err\n", "validate output");
            expect(live.find("SHELL_SANDBOX_COMMAND_EXECUTION_STDOUT:out\n") != std::string::npos,
                   "validate on_output gets channel and data");
            expect(r.result("r.json").find("\"answer\":42") != std::string::npos,
                   "validate results: " + r.results_json);
            expect(r.file("out.txt") == "caf\xc3\xa9\n" &&
                   r.file("bin.dat") == std::string("a\0b\xff", 4) && r.file("r.json").empty(),
                   "validate other results files: " + r.files_json);
            std::ofstream(src + "/run.sh") << "echo started; sleep 30\n";
            req.timeout_ms = 500;
            int st = 0;
            try {
                dval::validate(c, req);
            } catch (const dval::error &e) {
                st = e.status();
            }
            expect(st == DVAL_ETIMEOUT, "validate timeout throws DVAL_ETIMEOUT");
            // a cancel token fired from another thread stops a silent program
            std::ofstream(src + "/run.sh") << "sleep 30\n";
            req.timeout_ms = 0;
            dval::cancel_token token;
            req.cancel = &token;
            std::thread firer([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
                token.fire();
            });
            auto c0 = std::chrono::steady_clock::now();
            st = 0;
            try {
                dval::validate(c, req);
            } catch (const dval::error &e) {
                st = e.status();
            }
            firer.join();
            auto took = std::chrono::steady_clock::now() - c0;
            expect(st == DVAL_ECANCELED && token.fired() && took < std::chrono::seconds(5),
                   "cancel_token stops dval::validate (" +
                       std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()) +
                       " ms)");
            req.cancel = nullptr;
            req.isolation = "bogus";
            st = 0;
            try {
                dval::validate(c, req);
            } catch (const dval::error &e) {
                st = e.status();
            }
            expect(st == DVAL_EINVAL, "isolation=bogus throws DVAL_EINVAL");
            // services reach the library: an unknown one is its refusal
            req.isolation = "";
            req.services = {"mongodb"};
            std::string msg;
            try {
                dval::validate(c, req);
            } catch (const dval::error &e) {
                msg = e.what();
            }
            expect(msg.find("unknown service \"mongodb\"") != std::string::npos,
                   "services={\"mongodb\"} throws the library's refusal: " + msg);
            auto names = dval::service_names();
            expect(names.size() == 2 && names[0] == "postgres" && names[1] == "sqlite",
                   "dval::service_names");
            req.services.clear();
        }
        // the verdict in the result; an expected result; the program's own
        // memory limit (local), refused where it cannot be enforced
        {
            dval::validation req;
            req.profile = "shell";
            req.source_dir = sample;
            req.labels = {label};
            req.release = DVAL_RELEASE_DELETE;
            req.sandbox_name = "ffi-cpp-verdict-" + executor;
            req.has_expected = true;
            req.expected = "not what it prints\n";
            dval::validation_result r = dval::validate(c, req);
            expect(r.verdict == "wrong_results" && !r.verdict_detail.empty(),
                   "an expected result that differs: verdict " + r.verdict);
            req.has_expected = false;
            req.memory_mib = 64;
            req.run_command = "dd if=/dev/zero of=/dev/null bs=100M count=2 2>/dev/null";
            req.allow_missing_results = true;
            std::string verdict;
            int st = 0;
            try {
                verdict = dval::validate(c, req).verdict;
            } catch (const dval::error &e) {
                st = e.status();
            }
            expect(executor == "local" ? verdict == "memory_limit" : st == DVAL_EUNSUPPORTED,
                   "memory_mib=64: " + (verdict.empty() ? std::to_string(st) : verdict));
        }
        // args and stdin reach the program exactly (the program ends its
        // output with a newline: Daytona's log appends a missing one)
        {
            std::string dir = "/tmp/ffi-cpp-inputs-" + executor;
            std::system(("mkdir -p " + dir).c_str());
            std::ofstream(dir + "/run.sh")
                << "for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo\n"
                   "od -An -v -tx1 | tr -d ' \\n'; echo\n";
            dval::validation req;
            req.profile = "shell";
            req.source_dir = dir;
            req.labels = {label};
            req.release = DVAL_RELEASE_DELETE;
            req.sandbox_name = "ffi-cpp-inputs-" + executor;
            req.allow_missing_results = true;
            req.args = {"a b", "it's", "\"q\"", "$HOME", ""};
            req.has_stdin = true;
            req.stdin_data = std::string("hi\0\nx", 5);
            dval::validation_result r = dval::validate(c, req);
            expect(r.stdout_text == "[a b][it's][\"q\"][$HOME][]\n6869000a78\n",
                   "args and stdin reach the program: " + r.stdout_text);
            std::system(("rm -rf " + dir).c_str());
        }
        // a profile file: a mistake throws naming the file and the field
        {
            std::string path = "/tmp/ffi-cpp-profile-" + executor + ".json";
            std::ofstream(path) << "{\"name\": \"cpp-bad\", \"image\": "
                                   "\"debian:12-slim\", \"run_comand\": \"true\"}";
            std::string msg;
            int st = 0;
            try {
                dval::profile_load(path);
            } catch (const dval::error &e) {
                msg = e.what();
                st = e.status();
            }
            expect(st == DVAL_EINVAL && msg.find(".json: unknown field \"run_comand\"") !=
                                            std::string::npos,
                   "dval::profile_load throws the file's mistake: " + msg);
            std::ofstream(path) << "{\"name\": \"cpp-good\", \"image\": "
                                   "\"debian:12-slim\", \"run_command\": \"sh run.sh\"}";
            expect(dval::profile_load(path) == "cpp-good" &&
                       dval_profile_find("cpp-good") != nullptr,
                   "dval::profile_load registers the profile and returns its name");
            std::remove(path.c_str());
        }
        // an original and its translation at once, judged together
        {
            auto side = [&](const std::string &name, const std::string &script) {
                std::string dir = src + "-" + name;
                mkdir(dir.c_str(), 0755);
                std::ofstream(dir + "/run.sh") << script;
                dval::validation req;
                req.profile = "shell";
                req.source_dir = dir;
                req.sandbox_name = "ffi-cpp-diff-" + executor;
                req.release = DVAL_RELEASE_DELETE;
                req.labels = {label};
                return req;
            };
            const char *w = "printf '%s' > \"$DVAL_RESULTS_DIR/r.json\"\n";
            char buf[3][200];
            snprintf(buf[0], sizeof buf[0], w, "{\"n\":1,\"at\":\"a\"}");
            snprintf(buf[1], sizeof buf[1], w, "{\"at\":\"b\",\"n\":1}");
            snprintf(buf[2], sizeof buf[2], w, "{\"n\":2,\"at\":\"a\"}");
            dval::compare_options o;
            o.ignore = {"$..at"};
            dval::differential_result d =
                dval::validate_pair(c, side("o", buf[0]), side("s", buf[1]), o);
            expect(d.equivalent() && d.verdict == "equivalent",
                   "validate_pair: equivalent " + d.verdict_detail);
            d = dval::validate_pair(c, side("o", buf[0]), side("d", buf[2]), o);
            expect(d.outcome == DVAL_DIFF_DIFFERS && d.differences == 1 &&
                       d.diff_json.find("$[\\\"r.json\\\"].n") != std::string::npos,
                   "validate_pair: differs " + d.diff_json);
            d = dval::validate_pair(c, side("o", buf[0]), side("x", "exit 3\n"), o);
            expect(d.outcome == DVAL_DIFF_TRANSLATION_FAILED && d.verdict == "runtime_error" &&
                       d.failed_side == "translation",
                   "validate_pair: the failed side's verdict " + d.verdict);
        }
        // isolation=sandbox: a sandbox of its own, deleted after it (the
        // end of the sandbox phase names it: "<name> (<state>)")
        {
            dval::validation req;
            req.profile = "shell";
            req.source_dir = sample;
            req.thread_id = "cpp-iso";
            req.isolation = "sandbox";
            req.labels = {label};
            std::string used;
            req.on_event = [&](const dval_event &ev) {
                if (ev.type == DVAL_EVENT_PHASE && ev.done && std::string(ev.phase) == "sandbox" &&
                    ev.detail)
                    used = std::string(ev.detail).substr(0, std::string(ev.detail).find(' '));
                return dval::flow::go_on;
            };
            dval::validation_result r = dval::validate(c, req);
            expect(sample_ok(r, "cpp-iso") && used.compare(0, 14, "shell-sandbox-") == 0,
                   "isolation=sandbox runs the sample on its own " + used);
            expect(!used.empty() && live_named(c, used).empty(),
                   "isolation=sandbox deletes its sandbox");
        }
        // a C# program (examples/validation/dotnet, named by
        // $DVAL_DOTNET_SAMPLE: one run of the suite builds the dotnet
        // snapshot) on the local executor, like any other profile's
        const char *cs = std::getenv("DVAL_DOTNET_SAMPLE");
        if (executor == "local" && cs && *cs)
            validate_dotnet(c, cs);
        // a pool of 2 sandboxes shared by 4 threads
        {
            dval::pool_options po;
            po.profile = "shell";
            po.name = "ffi-cpp-pool-" + executor;
            po.max_sandboxes = 2;
            po.labels = {label};
            po.release = DVAL_RELEASE_DELETE;
            std::vector<dval::validation_result> rs(4);
            std::vector<std::string> errs(4);
            {
                dval::pool p(c, po);
                std::vector<std::thread> ts;
                for (int i = 0; i < 4; i++)
                    ts.emplace_back([&, i] {
                        dval::validation req;
                        req.source_dir = sample;
                        req.thread_id = "cpp-pool-" + std::to_string(i);
                        req.timeout_ms = 60000;
                        try {
                            rs[i] = p.validate(req);
                        } catch (const std::exception &e) {
                            errs[i] = e.what();
                        }
                    });
                for (auto &t : ts)
                    t.join();
                for (int i = 0; i < 4; i++) {
                    std::string tid = "cpp-pool-" + std::to_string(i);
                    expect(errs[i].empty() && sample_ok(rs[i], tid) &&
                               rs[i].sandbox_name.compare(0, po.name.size(), po.name) == 0,
                           "pool validate " + tid + " on " + rs[i].sandbox_name + errs[i]);
                }
                expect(!live_named(c, po.name).empty(), "pool sandboxes listed while open");
                dval_pool_stats st = p.stats();
                expect(st.max_sandboxes == 2 && st.completed == 4 && st.failed == 0 &&
                           st.running == 0 && st.waiting == 0,
                       "pool stats: completed " + std::to_string(st.completed));
            }
            std::vector<std::string> l = live_named(c, po.name);
            expect(l.empty(), "pool destructor deletes its sandboxes" + (l.empty() ? "" : ": " + l[0]));
        }
        // nothing this program created is left (Daytona renames a sandbox
        // DESTROYED_<name>_<ms> once it accepts the delete)
        struct seen {
            std::string prefix;
            std::vector<std::string> live;
        } left{"ffi-cpp-", {}};
        auto each = [](const char *, const char *n, int st, void *ud) -> int {
            auto *l = static_cast<seen *>(ud);
            std::string name = n ? n : "";
            if (name.compare(0, l->prefix.size(), l->prefix) == 0 && st != DVAL_SANDBOX_DESTROYED &&
                st != DVAL_SANDBOX_DESTROYING)
                l->live.push_back(name);
            return 0;
        };
        expect(dval_sandbox_list(c.get(), nullptr, each, &left) == DVAL_OK && left.live.empty(),
               "no sandbox left" + (left.live.empty() ? std::string() : ": " + left.live[0]));
        expect(dval::json_member(R"({"a":{"b":[1,"}"]},"c":"x\"y"})", "c") == R"("x\"y")",
               "json_member skips nested values and strings");
    } catch (const std::exception &e) {
        std::cout << "FAIL exception: " << e.what() << std::endl;
        return 1;
    }
    return failures ? 1 : 0;
}
