// dval.hpp - header-only C++ wrapper for libdaytona-validate (C++14 or later).
//
// Installed beside dval.h by `make install`; build with
//     c++ -std=c++14 app.cpp $(pkg-config --cflags --libs daytona-validate)
//
// Handles are RAII objects; failures throw dval::error (status + message);
// callbacks are std::function returning dval::flow: only dval::flow::stop
// stops the C call (an int a print function returns cannot be mistaken for
// it). An exception thrown by a callback stops the call too and is rethrown
// when the call returns. Output bytes
// arrive as dval::bytes_view, which converts to std::string and (C++17) to
// std::string_view.
//
// Sandboxes outlive the program: a dval::sandbox applies its release policy
// when it is destroyed, and the default policy is DVAL_RELEASE_KEEP (the
// sandbox keeps running for the next run). Pass DVAL_RELEASE_DELETE or
// DVAL_RELEASE_STOP to acquire_sandbox() or in dval::validation::release.
//
// Many validations at once: a dval::pool shares sandboxes of one profile
// between threads (dval::pool::validate from any thread); its destructor
// applies pool_options::release to them (KEEP by default: they keep
// running for the next pool).
#ifndef DVAL_HPP
#define DVAL_HPP

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dval.h"

namespace dval {

// A view of bytes owned by the library, valid during the callback only.
class bytes_view {
public:
    bytes_view() noexcept : p_(""), n_(0) {}
    bytes_view(const char *p, size_t n) noexcept : p_(p ? p : ""), n_(p ? n : 0) {}
    const char *data() const noexcept { return p_; }
    size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    const char *begin() const noexcept { return p_; }
    const char *end() const noexcept { return p_ + n_; }
    std::string str() const { return std::string(p_, n_); }
    // to std::string, std::string_view or any type built from (pointer, size)
    template <class S, class = decltype(S(static_cast<const char *>(nullptr), size_t()))>
    operator S() const { return S(p_, n_); }
    friend bool operator==(bytes_view a, bytes_view b) noexcept
    {
        return a.n_ == b.n_ && (a.n_ == 0 || std::memcmp(a.p_, b.p_, a.n_) == 0);
    }
    friend bool operator!=(bytes_view a, bytes_view b) noexcept { return !(a == b); }

private:
    const char *p_;
    size_t n_;
};

inline std::string &operator+=(std::string &s, bytes_view b) { return s.append(b.data(), b.size()); }

class error : public std::runtime_error {
public:
    error(int status, const std::string &msg)
        : std::runtime_error(std::string(dval_status_name(status)) + ": " + msg),
          status_(status), message_(msg) {}
    int status() const noexcept { return status_; }
    const char *name() const noexcept { return dval_status_name(status_); }
    const std::string &message() const noexcept { return message_; }

private:
    int status_;
    std::string message_;
};

// What a callback returns: go on, or stop the call it was called from.
enum class flow { go_on, stop };

namespace detail {
inline int stop_rc(flow f) { return f == flow::stop ? 1 : 0; }
inline void check(int rc, const char *msg = nullptr)
{
    if (rc < 0)
        throw error(rc, msg && *msg ? msg : dval_strerror(rc));
}
template <class T, void (*F)(T *)> struct deleter {
    void operator()(T *p) const noexcept { F(p); }
};
// Carries a callback and the exception it threw across the C boundary.
template <class Fn> struct call {
    Fn fn;
    std::exception_ptr ex;
    template <class... A> int run(A &&...a) noexcept
    {
        if (ex)
            return 1;
        try {
            return stop_rc(fn(std::forward<A>(a)...));
        } catch (...) {
            ex = std::current_exception();
            return 1;
        }
    }
    void rethrow()
    {
        if (ex)
            std::rethrow_exception(std::exchange(ex, nullptr));
    }
};
// NULL-terminated array view of a vector<string>.
struct cstrs {
    std::vector<const char *> v;
    explicit cstrs(const std::vector<std::string> &s)
    {
        for (auto &x : s)
            v.push_back(x.c_str());
        v.push_back(nullptr);
    }
    const char *const *get() const { return v.size() > 1 ? v.data() : nullptr; }
};
inline const char *opt(const std::string &s) { return s.empty() ? nullptr : s.c_str(); }
struct free_fn {
    void operator()(void *p) const noexcept { dval_free(p); }
};

// Skips one JSON value starting at s[i] (the library's compact output);
// returns the index after it.
inline size_t json_skip(const std::string &s, size_t i)
{
    if (i >= s.size())
        return i;
    if (s[i] == '"') {
        for (i++; i < s.size() && s[i] != '"'; i++)
            if (s[i] == '\\')
                i++;
        return i + 1;
    }
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (; i < s.size(); i++) {
            char c = s[i];
            if (c == '"') {
                i = json_skip(s, i) - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return i;
    }
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']')
        i++;
    return i;
}

// Appends code point cp as UTF-8.
inline void utf8(std::string &out, unsigned long cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// The text of a JSON string token ("..." with escapes); "" for null.
inline std::string json_string(const std::string &tok)
{
    std::string out;
    if (tok.size() < 2 || tok[0] != '"')
        return out;
    for (size_t i = 1; i + 1 < tok.size(); i++) {
        char c = tok[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        char e = tok[++i];
        const char *map = "b\bf\fn\nr\rt\t", *m = std::strchr(map, e);
        if (e == 'u' && i + 4 < tok.size()) {
            unsigned long cp = std::strtoul(tok.substr(i + 1, 4).c_str(), nullptr, 16);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < tok.size() && tok[i + 1] == '\\') {
                unsigned long lo = std::strtoul(tok.substr(i + 3, 4).c_str(), nullptr, 16);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            utf8(out, cp);
        } else if (m && e && (m - map) % 2 == 0) {
            out += m[1];
        } else {
            out += e;
        }
    }
    return out;
}

// The bytes of padded base64 text (characters outside the alphabet skipped).
inline std::string base64_decode(const std::string &text)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned v = 0;
    int bits = 0;
    for (char c : text) {
        const char *at = c && c != '=' ? std::strchr(abc, c) : nullptr;
        if (!at)
            continue;
        v = v << 6 | unsigned(at - abc);
        if ((bits += 6) >= 8) {
            bits -= 8;
            out += char((v >> bits) & 0xff);
        }
    }
    return out;
}
} // namespace detail

// The raw JSON text of member `key` of the JSON object `object` ("" when
// absent), e.g. json_member(r.results_json, "results.json").
inline std::string json_member(const std::string &object, const std::string &key)
{
    size_t i = object.find('{');
    if (i == std::string::npos)
        return "";
    for (i++; i < object.size() && object[i] != '}';) {
        if (object[i] == ',' || object[i] == ' ') {
            i++;
            continue;
        }
        size_t kend = detail::json_skip(object, i);
        std::string k = detail::json_string(object.substr(i, kend - i));
        size_t v = kend + 1; // after ':'
        while (v < object.size() && object[v] == ' ')
            v++;
        size_t vend = detail::json_skip(object, v);
        if (k == key)
            return object.substr(v, vend - v);
        i = vend;
    }
    return "";
}

using output_fn = std::function<flow(int stream, bytes_view channel, bytes_view data)>;
using data_fn = std::function<flow(bytes_view data)>;
using event_fn = std::function<flow(const dval_event &event)>;

using client_ptr = std::unique_ptr<dval_client, detail::deleter<dval_client, dval_client_free>>;
using snapshot_ptr = std::unique_ptr<dval_snapshot, detail::deleter<dval_snapshot, dval_snapshot_free>>;
using sandbox_ptr = std::unique_ptr<dval_sandbox, detail::deleter<dval_sandbox, dval_sandbox_free>>;
using session_ptr = std::unique_ptr<dval_session, detail::deleter<dval_session, dval_session_free>>;

// api_url, api_key and request_timeout_ms configure the daytona executor
// (dval_daytona_options), state_dir the local one (dval_local_options).
struct client_config {
    std::string executor, api_url, api_key, state_dir;
    int64_t request_timeout_ms = 0, retry_base_ms = 0, retry_cap_ms = 0;
};

// Runs commands one after the other; cancel() works from any thread. The
// destructor deletes the remote session (best effort; close() reports).
class session {
public:
    explicit session(dval_session *s) : s_(s) {}
    session(session &&) noexcept = default;
    session &operator=(session &&) noexcept = default;
    ~session()
    {
        if (s_)
            dval_session_close(s_.get());
    }
    std::string id() const { return dval_session_id(s_.get()); }
    // Runs command and returns its exit code; on_output gets live output
    // (dval::flow::stop stops the command).
    int exec(const std::string &command, output_fn on_output = {},
             int64_t timeout_ms = 0, const std::string &channel_prefix = {})
    {
        dval_exec_options o;
        detail::check(dval_exec_options_init(&o, sizeof o));
        o.timeout_ms = timeout_ms;
        o.channel_prefix = detail::opt(channel_prefix);
        detail::call<output_fn> c{std::move(on_output), nullptr};
        auto tramp = [](int st, const char *ch, const char *d, size_t n, void *ud) -> int {
            return static_cast<detail::call<output_fn> *>(ud)->run(
                st, bytes_view(ch, ch ? std::strlen(ch) : 0), bytes_view(d, n));
        };
        int code = -1;
        int rc = dval_session_exec(s_.get(), command.c_str(), &o,
                                   c.fn ? +tramp : nullptr, &c, &code);
        c.rethrow();
        detail::check(rc, dval_session_errmsg(s_.get()));
        return code;
    }
    void cancel() { detail::check(dval_session_cancel(s_.get())); }
    void close()
    {
        int rc = dval_session_close(s_.get());
        const std::string msg = dval_session_errmsg(s_.get());
        s_.reset();
        detail::check(rc, msg.c_str());
    }
    dval_session *get() const { return s_.get(); }

private:
    session_ptr s_;
};

// A started sandbox. Its destructor applies the release policy given to
// acquire_sandbox() (DVAL_RELEASE_KEEP by default: it keeps running).
class sandbox {
public:
    explicit sandbox(dval_sandbox *sb) : sb_(sb) {}
    sandbox(sandbox &&) noexcept = default;
    sandbox &operator=(sandbox &&) noexcept = default;
    ~sandbox()
    {
        if (sb_)
            dval_sandbox_release(sb_.get()); // best effort; release() reports
    }
    std::string name() const { return dval_sandbox_name(sb_.get()); }
    std::string id() const { return dval_sandbox_id(sb_.get()); }
    int state() const { return dval_sandbox_state(sb_.get()); }
    void upload(const std::string &path, const std::string &data)
    {
        detail::check(dval_sandbox_upload(sb_.get(), path.c_str(), data.data(), data.size()), err());
    }
    std::string download(const std::string &path)
    {
        char *d = nullptr;
        size_t n = 0;
        detail::check(dval_sandbox_download(sb_.get(), path.c_str(), &d, &n), err());
        std::unique_ptr<char, detail::free_fn> hold(d);
        return std::string(d, n);
    }
    std::string download_json(const std::string &path)
    {
        char *j = nullptr;
        detail::check(dval_sandbox_download_json(sb_.get(), path.c_str(), &j), err());
        std::unique_ptr<char, detail::free_fn> hold(j);
        return j;
    }
    session open_session()
    {
        dval_session *s = nullptr;
        detail::check(dval_session_open(&s, sb_.get()), err());
        return session(s);
    }
    // Applies the release policy now, then frees the handle.
    void release()
    {
        int rc = dval_sandbox_release(sb_.get());
        const std::string msg = err();
        sb_.reset();
        detail::check(rc, msg.c_str());
    }
    void remove() { detail::check(dval_sandbox_delete(sb_.get()), err()); }
    dval_sandbox *get() const { return sb_.get(); }

private:
    const char *err() const { return dval_sandbox_errmsg(sb_.get()); }
    sandbox_ptr sb_;
};

// A cancel token: fire() from any thread makes the dval::validate calls
// given it end with DVAL_ECANCELED promptly, in any phase, their session
// closed. Fired once for good; it must outlive the calls using it.
class cancel_token {
public:
    cancel_token()
    {
        dval_cancel *t = nullptr;
        detail::check(dval_cancel_new(&t));
        t_.reset(t);
    }
    void fire() { detail::check(dval_cancel_fire(t_.get())); }
    bool fired() const { return dval_cancel_fired(t_.get()) != 0; }
    dval_cancel *get() const { return t_.get(); }

private:
    std::unique_ptr<dval_cancel, detail::deleter<dval_cancel, dval_cancel_free>> t_;
};

// One request for dval::validate.
struct validation {
    std::string profile, source_dir;    // required
    std::string thread_id;              // "" → a uuid4
    // "" or "session": the profile's shared sandbox, a session each;
    // "sandbox": a sandbox created for this validation and deleted after it
    std::string isolation;
    std::string sandbox_name, snapshot_name, run_command;
    int64_t timeout_ms = 0;
    // DVAL_RELEASE_KEEP (default: the sandbox keeps running after your
    // program ends), DVAL_RELEASE_STOP or DVAL_RELEASE_DELETE.
    int release = DVAL_RELEASE_KEEP;
    std::vector<std::string> labels;
    bool allow_missing_results = false;
    // Services the program gets a fresh database of (dval::service_names:
    // "postgres", "sqlite"; the first one's is $DVAL_DB_URL, $DVAL_DB_ADO,
    // $DVAL_DB_JDBC, ...; a failed service: exit 70, "dval: infrastructure:
    // ..." on stderr), and host paths of SQL files loaded into them when
    // their snapshot is built. Through a pool both stay empty (the pool's).
    std::vector<std::string> services, seeds;
    // Limits of the program's own processes, even in a shared sandbox (0:
    // none): verdicts "memory_limit", "time_limit", "output_limit"; an
    // executor that cannot enforce them throws DVAL_EUNSUPPORTED.
    int32_t memory_mib = 0, max_processes = 0;
    int64_t cpu_time_ms = 0, output_bytes = 0;
    // The most all results files may hold together (as the summary holds
    // them; 0: the library's 64 MiB): past it, verdict "results_invalid".
    int64_t results_bytes = 0;
    // Compared with the program's stdout (text), or with the results file
    // expected_file (JSON): verdict "passed" or "wrong_results". Used when
    // has_expected is true.
    bool has_expected = false;
    std::string expected, expected_file;
    // The program's arguments, appended (each quoted, as it is) to the run
    // command, and its stdin (any bytes) when has_stdin is true, else an
    // empty one. The build gets neither.
    std::vector<std::string> args;
    bool has_stdin = false;
    std::string stdin_data;
    output_fn on_output;                // live output (may be empty)
    event_fn on_event;                  // every progress event (may be empty)
    cancel_token *cancel = nullptr;     // borrowed for the call (may be null)
};

// What a validation produced.
struct validation_result {
    int status = DVAL_OK;      // DVAL_OK, or DVAL_ERESULTS (program ran, results bad)
    bool ran = false;          // the program ran to its end
    int exit_code = -1;        // its exit code when ran
    std::string results_json;  // {"<file>.json": document, ...}
    // The other results files (not *.json, library 0.1.7 or later):
    // {"<file>": {"text": "..."} or {"base64": "..."}, with "bytes"}
    std::string files_json;
    std::string summary_json;  // the library's whole summary
    std::string stdout_text, stderr_text;
    std::string thread_id, session_id, sandbox_name;
    // "passed", "compile_error", "runtime_error", "time_limit",
    // "memory_limit", "output_limit", "results_missing", "results_invalid",
    // "runtime_unsupported", "wrong_results", "canceled" or
    // "infrastructure_error"; verdict_detail says why
    std::string verdict, verdict_detail;
    bool ok() const { return status == DVAL_OK && ran && exit_code == 0; }
    // The raw JSON document of one results file ("" when absent).
    std::string result(const std::string &file) const { return json_member(results_json, file); }
    // The bytes of another results file, as the program wrote them ("" when
    // absent).
    std::string file(const std::string &name) const
    {
        std::string entry = json_member(files_json, name);
        std::string text = json_member(entry, "text");
        return !text.empty() ? detail::json_string(text)
                             : detail::base64_decode(detail::json_string(json_member(entry, "base64")));
    }
};

class client {
public:
    explicit client(const client_config &cfg = {})
    {
        // each executor reads only its own options struct
        dval_daytona_options d;
        detail::check(dval_daytona_options_init(&d, sizeof d));
        d.api_url = detail::opt(cfg.api_url);
        d.api_key = detail::opt(cfg.api_key);
        d.request_timeout_ms = cfg.request_timeout_ms;
        dval_local_options l;
        detail::check(dval_local_options_init(&l, sizeof l));
        l.state_dir = detail::opt(cfg.state_dir);
        dval_client_options o;
        detail::check(dval_client_options_init(&o, sizeof o));
        o.executor = detail::opt(cfg.executor);
        o.daytona = &d;
        o.local = &l;
        o.retry_base_ms = cfg.retry_base_ms;
        o.retry_cap_ms = cfg.retry_cap_ms;
        dval_client *c = nullptr;
        detail::check(dval_client_new(&c, &o));
        c_.reset(c);
    }
    std::string executor_name() const { return dval_client_executor_name(c_.get()); }
    snapshot_ptr ensure_snapshot(const std::string &name, const std::string &image,
                                 const std::vector<std::string> &build = {},
                                 data_fn on_log = {})
    {
        dval_snapshot_spec s;
        detail::check(dval_snapshot_spec_init(&s, sizeof s));
        detail::cstrs cmds(build);
        s.name = name.c_str();
        s.image = detail::opt(image);
        s.build_commands = cmds.get();
        detail::call<data_fn> c{std::move(on_log), nullptr};
        auto tramp = [](const char *d, size_t n, void *ud) -> int {
            return static_cast<detail::call<data_fn> *>(ud)->run(bytes_view(d, n));
        };
        dval_snapshot *out = nullptr;
        int rc = dval_snapshot_ensure(&out, c_.get(), &s, c.fn ? +tramp : nullptr, &c);
        c.rethrow();
        detail::check(rc, dval_client_errmsg(c_.get()));
        return snapshot_ptr(out);
    }
    // release: what the sandbox's destructor (or release()) does.
    sandbox acquire_sandbox(const std::string &name, const std::string &snapshot,
                            int release = DVAL_RELEASE_KEEP,
                            const std::vector<std::string> &labels = {})
    {
        dval_sandbox_options o;
        detail::check(dval_sandbox_options_init(&o, sizeof o));
        detail::cstrs l(labels);
        o.name = name.c_str();
        o.snapshot = detail::opt(snapshot);
        o.labels = l.get();
        o.release = release;
        dval_sandbox *sb = nullptr;
        detail::check(dval_sandbox_acquire(&sb, c_.get(), &o), dval_client_errmsg(c_.get()));
        return sandbox(sb);
    }
    dval_client *get() const { return c_.get(); }

private:
    client_ptr c_;
};

namespace detail {
struct validate_state {
    const validation *req;
    validation_result *res;
    call<event_fn> cb;
};

inline int on_validate_event(const dval_event *ev, void *ud)
{
    auto *st = static_cast<validate_state *>(ud);
    return st->cb.run(*ev);
}

inline void fill_result(validation_result &r, const char *json)
{
    r.summary_json = json;
    std::string code = json_member(r.summary_json, "exit_code");
    r.ran = !code.empty() && code != "null";
    r.exit_code = r.ran ? std::atoi(code.c_str()) : -1;
    r.results_json = json_member(r.summary_json, "results");
    r.files_json = json_member(r.summary_json, "files");
    r.thread_id = json_string(json_member(r.summary_json, "thread_id"));
    r.session_id = json_string(json_member(r.summary_json, "session"));
    r.sandbox_name = json_string(json_member(r.summary_json, "sandbox"));
    r.verdict = json_string(json_member(r.summary_json, "verdict"));
    r.verdict_detail = json_string(json_member(r.summary_json, "verdict_detail"));
}

inline int32_t isolation_value(const std::string &name)
{
    if (name.empty() || name == "session")
        return DVAL_ISOLATION_SESSION;
    if (name == "sandbox")
        return DVAL_ISOLATION_SANDBOX;
    throw error(DVAL_EINVAL, "isolation \"" + name + "\": expected \"session\" or \"sandbox\"");
}

// dval_validate on client, or dval_pool_validate on pool when not null.
inline validation_result run_validation(dval_client *c, dval_pool *pool, const validation &req)
{
    dval_validation v;
    check(dval_validation_init(&v, sizeof v));
    cstrs labels(req.labels), services(req.services), seeds(req.seeds), args(req.args);
    v.profile = opt(req.profile);
    v.source_dir = req.source_dir.c_str();
    v.thread_id = opt(req.thread_id);
    v.sandbox_name = opt(req.sandbox_name);
    v.snapshot_name = opt(req.snapshot_name);
    v.run_command = opt(req.run_command);
    v.timeout_ms = req.timeout_ms;
    v.release = req.release;
    v.labels = labels.get();
    v.allow_missing_results = req.allow_missing_results ? 1 : 0;
    v.cancel = req.cancel ? req.cancel->get() : nullptr;
    v.isolation = isolation_value(req.isolation);
    v.services = services.get();
    v.seeds = seeds.get();
    v.memory_mib = req.memory_mib;
    v.max_processes = req.max_processes;
    v.cpu_time_ms = req.cpu_time_ms;
    v.output_bytes = req.output_bytes;
    v.results_bytes = req.results_bytes;
    if (req.has_expected) {
        v.expected = req.expected.data();
        v.expected_len = req.expected.size();
    }
    v.expected_file = opt(req.expected_file);
    v.args = args.get();
    if (req.has_stdin) {
        v.stdin_data = req.stdin_data.data();
        v.stdin_len = req.stdin_data.size();
    }
    validation_result res;
    validate_state st{&req, &res, {nullptr, nullptr}};
    st.cb.fn = [&st](const dval_event &ev) -> flow {
        if (ev.type == DVAL_EVENT_OUTPUT) {
            (ev.stream == DVAL_STDERR ? st.res->stderr_text : st.res->stdout_text)
                .append(ev.data ? ev.data : "", ev.data ? ev.len : 0);
            if (st.req->on_output) {
                const char *ch = ev.channel ? ev.channel : "";
                if (st.req->on_output(ev.stream, bytes_view(ch, std::strlen(ch)),
                                      bytes_view(ev.data, ev.len)) == flow::stop)
                    return flow::stop;
            }
        }
        return st.req->on_event ? st.req->on_event(ev) : flow::go_on;
    };
    char *json = nullptr;
    int rc = pool ? dval_pool_validate(pool, &v, on_validate_event, &st, &json)
                  : dval_validate(c, &v, on_validate_event, &st, &json);
    std::unique_ptr<char, free_fn> hold(json);
    st.cb.rethrow();
    if (rc != DVAL_OK && rc != DVAL_ERESULTS)
        throw error(rc, dval_client_errmsg(c));
    res.status = rc;
    if (json)
        fill_result(res, json);
    return res;
}
} // namespace detail

// The services a validation may ask for (dval_service_names).
inline std::vector<std::string> service_names()
{
    const char *const *n = nullptr;
    std::vector<std::string> out;
    if (dval_service_names(&n) == DVAL_OK)
        for (; n && *n; n++)
            out.emplace_back(*n);
    return out;
}

// Loads a profile file (JSON: name, image, run_command, build steps,
// files, services, ...; dval_profile_load(3)) and registers it for this
// process; returns its name, for validation::profile. Throws dval::error
// naming the file and the mistake.
inline std::string profile_load(const std::string &path)
{
    const char *name = nullptr;
    char err[1024];
    detail::check(dval_profile_load(path.c_str(), &name, err, sizeof err), err);
    return name;
}

// The whole loop in one call: snapshot → sandbox → session → upload → exec
// (live output) → results → close. Returns the result when the program ran
// (whatever its exit code; status DVAL_ERESULTS when its results were
// missing or invalid); throws dval::error otherwise.
inline validation_result validate(client &c, const validation &req)
{
    if (req.profile.empty())
        throw error(DVAL_EINVAL, "validation.profile is required");
    return detail::run_validation(c.get(), nullptr, req);
}

// Options of a dval::pool (dval_pool_options; 0 / "" → the library's default).
struct pool_options {
    std::string profile;             // required
    std::string name;                // sandbox name prefix; "" → "pool-<profile>"
    int min_warm = 0;                // sandboxes acquired by the constructor
    int max_sandboxes = 0;           // 0 → 4
    int max_per_sandbox = 0;         // concurrent validations on one; 0 → 1
    int64_t idle_timeout_ms = 0;     // 0: idle sandboxes are never released
    std::vector<std::string> labels; // extra labels of every pool sandbox
    int max_queue = 0;               // waiting callers; 0 → 256, -1 → unbounded
    // what happens to idle sandboxes and in the destructor: DVAL_RELEASE_KEEP
    // (default: they keep running after your program ends), STOP or DELETE
    int release = DVAL_RELEASE_KEEP;
    int ttl_minutes = 0;             // Daytona TTL; 0 → 24 h, -1 → none
    // services and seeds of every validation on the pool (as in
    // dval::validation); its sandboxes keep the services running
    std::vector<std::string> services, seeds;
};

// A pool of sandboxes of one profile shared by many threads: validate()
// leases a sandbox, runs the program on it and returns it; callers wait in
// FIFO order when all are busy (DVAL_EBUSY beyond max_queue). The
// destructor applies the release policy; no validate() may still run then.
// The pool keeps its client alive.
class pool {
public:
    pool(client &c, const pool_options &o) : c_(c.get())
    {
        dval_pool_options po;
        detail::check(dval_pool_options_init(&po, sizeof po));
        detail::cstrs labels(o.labels), services(o.services), seeds(o.seeds);
        po.profile = o.profile.c_str();
        po.name = detail::opt(o.name);
        po.min_warm = o.min_warm;
        po.max_sandboxes = o.max_sandboxes;
        po.max_per_sandbox = o.max_per_sandbox;
        po.idle_timeout_ms = o.idle_timeout_ms;
        po.labels = labels.get();
        po.max_queue = o.max_queue;
        po.release = o.release;
        po.ttl_minutes = o.ttl_minutes;
        po.services = services.get();
        po.seeds = seeds.get();
        dval_pool *p = nullptr;
        detail::check(dval_pool_new(&p, c_, &po), dval_client_errmsg(c_));
        p_.reset(p);
    }
    // As dval::validate on a leased sandbox; thread-safe. req.profile may be
    // empty (the pool's); req.sandbox_name must be empty.
    validation_result validate(const validation &req)
    {
        return detail::run_validation(c_, p_.get(), req);
    }
    // The pool's counts at one moment (dval_pool_stats_get); thread-safe.
    dval_pool_stats stats() const
    {
        dval_pool_stats st;
        detail::check(dval_pool_stats_get(p_.get(), &st, sizeof st));
        return st;
    }
    dval_pool *get() const { return p_.get(); }

private:
    dval_client *c_; // kept alive by the pool's own reference
    std::unique_ptr<dval_pool, detail::deleter<dval_pool, dval_pool_free>> p_;
};

// How two validations' results are compared (dval_compare_options): JSON
// paths left out ("$..generated_at"), number tolerances.
struct compare_options {
    std::vector<std::string> ignore;
    double abs_tolerance = 0, rel_tolerance = 0;
    int max_diffs = 0;               // listed differences; 0 → 20
};

// The judgement of a translation against its original (dval_differential).
struct differential_result {
    int outcome = 0;                 // enum dval_differential_outcome
    // "equivalent", "differs", or the failed side's own verdict
    std::string verdict, verdict_detail;
    size_t differences = 0;
    std::string diff_json;           // [{"path","kind","expected","actual"}]
    std::string failed_side;         // "original", "translation" or ""
    validation_result original, translation; // from validate_pair
    bool equivalent() const { return outcome == DVAL_DIFF_EQUIVALENT; }
};

// Judges two validations from their summaries; throws dval::error for a
// summary that is not one.
inline differential_result differential(const validation_result &original,
                                        const validation_result &translation,
                                        const compare_options &o = compare_options())
{
    dval_compare_options opts;
    dval_compare_options_init(&opts, sizeof opts);
    detail::cstrs ignore(o.ignore);
    opts.ignore = ignore.get();
    opts.abs_tolerance = o.abs_tolerance;
    opts.rel_tolerance = o.rel_tolerance;
    opts.max_diffs = o.max_diffs;
    int outcome = 0;
    char *report = nullptr;
    detail::check(dval_differential(&outcome, &report, original.summary_json.c_str(),
                                    translation.summary_json.c_str(), &opts),
                  "dval_differential: a side is not a validation's summary");
    std::unique_ptr<char, detail::free_fn> own(report);
    std::string rep(report);
    differential_result d;
    d.outcome = outcome;
    d.verdict = detail::json_string(json_member(rep, "verdict"));
    d.verdict_detail = detail::json_string(json_member(rep, "verdict_detail"));
    d.differences = std::stoul(json_member(rep, "differences"));
    d.diff_json = json_member(rep, "diff");
    d.failed_side = detail::json_string(json_member(rep, "failed_side"));
    d.original = original;
    d.translation = translation;
    return d;
}

// Validates an original and its translation at the same time (a second
// thread on the same client) and judges them; a side that fails without a
// verdict throws its dval::error.
inline differential_result validate_pair(client &c, const validation &original,
                                         const validation &translation,
                                         const compare_options &o = compare_options())
{
    validation_result first;
    std::exception_ptr failed;
    std::thread th([&] {
        try {
            first = validate(c, original);
        } catch (...) {
            failed = std::current_exception();
        }
    });
    validation_result second;
    try {
        second = validate(c, translation);
    } catch (...) {
        th.join();
        throw;
    }
    th.join();
    if (failed)
        std::rethrow_exception(failed);
    return differential(first, second, o);
}

} // namespace dval

#endif
