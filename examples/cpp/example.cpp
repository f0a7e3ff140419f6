// Whole lifecycle with the C++ wrapper: snapshot, sandbox, session with
// live output, JSON upload/download, exception from a callback, cancel.
// usage: example local STATE_DIR | example daytona API_URL
// exit 0 = passed, 77 = executor not available (skip), 1 = failed.
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
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
} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::cerr << "usage: example local STATE_DIR | example daytona API_URL\n";
        return 2;
    }
    const std::string executor = argv[1];
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
                              [&](int st, std::string_view, std::string_view d) {
                                  (st == DVAL_STDOUT ? out : err).append(d);
                                  return 0;
                              });
            expect(code == 3 && out == "hello\n" && err == "oops\n", "exec with live output");

            sb.upload("/sandbox/ffi-cpp/in.json", R"({"numbers":[1,2,3]})");
            code = s.exec("cd /sandbox/ffi-cpp && sed s/numbers/values/ in.json > out.json");
            std::string doc = sb.download_json("/sandbox/ffi-cpp/out.json");
            expect(code == 0 && doc.find("\"values\"") != std::string::npos, "upload/download JSON");

            bool caught = false;
            auto t0 = std::chrono::steady_clock::now();
            try {
                s.exec("echo a; sleep 20", [](int, std::string_view, std::string_view) -> int {
                    throw stop_here{};
                });
            } catch (const stop_here &) {
                caught = true;
            }
            expect(caught && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15),
                   "callback exception stops the call and is rethrown");
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
        expect(true, "release");
    } catch (const std::exception &e) {
        std::cout << "FAIL exception: " << e.what() << std::endl;
        return 1;
    }
    return failures ? 1 : 0;
}
