// A tour of the C++ wrapper, from one call to the whole lifecycle.
//
//     c++ -std=c++14 tour.cpp $(pkg-config --cflags --libs daytona-validate) -o tour
//     ./tour /tmp/dval-tour examples/validation/shell [examples/validation/dotnet]
//
// It uses the local executor (no account needed) and deletes everything it
// creates before it exits.
#include <iostream>
#include <string>

#include <dval.hpp>

static void step(const char *title) { std::cout << "\n== " << title << std::endl; }

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        std::cerr << "usage: tour STATE_DIR FOLDER [CSHARP_FOLDER] (a folder with run.sh; one with a"
                     " .csproj and Program.cs)\n";
        return 2;
    }
    try {
        // 1. One client per process is enough: it is thread-safe. An empty
        //    executor would pick Daytona when DAYTONA_API_KEY is set.
        step("1. a client");
        dval::client_config cfg;
        cfg.executor = "local";
        cfg.state_dir = argv[1];
        dval::client c(cfg);
        std::cout << "library " << dval_version() << ", executor " << c.executor_name() << "\n";

        // 2. The one-call form: the shell profile runs `sh run.sh` in the
        //    uploaded folder; output streams live. DVAL_RELEASE_DELETE removes
        //    the sandbox afterwards; the default, DVAL_RELEASE_KEEP, leaves it
        //    running after this program ends so the next run is fast.
        step("2. dval::validate");
        dval::validation req;
        req.profile = "shell";
        req.source_dir = argv[2];
        req.release = DVAL_RELEASE_DELETE;
        req.on_output = [](int stream, dval::bytes_view, dval::bytes_view data) {
            (stream == DVAL_STDERR ? std::cerr : std::cout) << data.str();
            return dval::flow::go_on; // dval::flow::stop would stop it
        };
        dval::validation_result r = dval::validate(c, req);
        std::cout << "exit code " << r.exit_code << ", ok " << r.ok() << "\n"
                  << "results.json: " << r.result("results.json") << "\n";

        // 3. Failures throw dval::error; a non-zero exit code of the program
        //    is not a failure: it is r.exit_code.
        step("3. a timeout throws DVAL_ETIMEOUT");
        req.run_command = "echo working; sleep 10";
        req.timeout_ms = 300;
        try {
            dval::validate(c, req);
        } catch (const dval::error &e) {
            std::cout << e.name() << ": " << e.message() << "\n";
        }

        // 4. The lifecycle by hand. The sandbox's destructor applies its
        //    release policy (delete, here); a session's deletes the session.
        step("4. the lifecycle by hand");
        dval::snapshot_ptr snap = c.ensure_snapshot("tour-snapshot", "debian:12-slim");
        {
            dval::sandbox sb = c.acquire_sandbox("tour-sandbox", "tour-snapshot", DVAL_RELEASE_DELETE);
            std::cout << "sandbox " << sb.name() << " " << dval_sandbox_state_name(sb.state()) << "\n";
            sb.upload("/sandbox/tour/hello.txt", "hello from the host\n");
            dval::session s = sb.open_session();
            int code = s.exec("cat /sandbox/tour/hello.txt; exit 7",
                              [](int, dval::bytes_view, dval::bytes_view d) {
                                  std::cout << d.str();
                                  return dval::flow::go_on;
                              });
            std::cout << "exit code " << code << "\n";
        }
        dval_snapshot_delete(snap.get());

        // 5. C# is one profile more: "dotnet" compiles the folder's .csproj
        //    and runs it. Its first use builds the profile's snapshot (the
        //    .NET SDK, NuGet packages, a compile service: tens of seconds);
        //    without a .NET 10 SDK on this machine it throws
        //    DVAL_EUNSUPPORTED, saying how to get one.
        if (argc == 4) {
            step("5. a C# program");
            dval::validation cs;
            cs.profile = "dotnet";
            cs.source_dir = argv[3];
            cs.release = DVAL_RELEASE_DELETE;
            cs.on_output = req.on_output;
            dval::validation_result rc = dval::validate(c, cs);
            std::cout << "exit code " << rc.exit_code << ", results.json: "
                      << rc.result("results.json") << "\n";
            if (!rc.ok())
                return 1;
        }
    } catch (const dval::error &e) {
        std::cerr << "tour: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
