// dval.hpp - header-only C++17 RAII wrapper for libdaytona-validate.
// Handles are std::unique_ptr with the library's _free as deleter; failures
// throw dval::error (status + message); callbacks are std::function. An
// exception thrown by a callback stops the C call (non-zero return) and is
// rethrown when the call returns.
#ifndef DVAL_HPP
#define DVAL_HPP

#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dval.h"

namespace dval {

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

namespace detail {
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
            return fn(std::forward<A>(a)...);
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
} // namespace detail

using output_fn = std::function<int(int stream, std::string_view channel, std::string_view data)>;
using data_fn = std::function<int(std::string_view data)>;

using client_ptr = std::unique_ptr<dval_client, detail::deleter<dval_client, dval_client_free>>;
using snapshot_ptr = std::unique_ptr<dval_snapshot, detail::deleter<dval_snapshot, dval_snapshot_free>>;
using sandbox_ptr = std::unique_ptr<dval_sandbox, detail::deleter<dval_sandbox, dval_sandbox_free>>;
using session_ptr = std::unique_ptr<dval_session, detail::deleter<dval_session, dval_session_free>>;

struct client_config {
    std::string executor, api_url, api_key, state_dir;
    int64_t request_timeout_ms = 0, retry_base_ms = 0, retry_cap_ms = 0;
};

class session {
public:
    explicit session(dval_session *s) : s_(s) {}
    session(session &&) noexcept = default;
    session &operator=(session &&) noexcept = default;
    ~session()
    {
        if (s_)
            dval_session_close(s_.get()); // best effort; close() reports errors
    }
    std::string id() const { return dval_session_id(s_.get()); }
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
                st, std::string_view(ch ? ch : ""), std::string_view(d, n));
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

class sandbox {
public:
    explicit sandbox(dval_sandbox *sb) : sb_(sb) {}
    std::string name() const { return dval_sandbox_name(sb_.get()); }
    std::string id() const { return dval_sandbox_id(sb_.get()); }
    int state() const { return dval_sandbox_state(sb_.get()); }
    void upload(const std::string &path, std::string_view data)
    {
        detail::check(dval_sandbox_upload(sb_.get(), path.c_str(), data.data(), data.size()), err());
    }
    std::string download(const std::string &path)
    {
        char *d = nullptr;
        size_t n = 0;
        detail::check(dval_sandbox_download(sb_.get(), path.c_str(), &d, &n), err());
        std::unique_ptr<char, detail::deleter<void, dval_free>> hold(d);
        return std::string(d, n);
    }
    std::string download_json(const std::string &path)
    {
        char *j = nullptr;
        detail::check(dval_sandbox_download_json(sb_.get(), path.c_str(), &j), err());
        std::unique_ptr<char, detail::deleter<void, dval_free>> hold(j);
        return j;
    }
    session open_session()
    {
        dval_session *s = nullptr;
        detail::check(dval_session_open(&s, sb_.get()), err());
        return session(s);
    }
    void release() { detail::check(dval_sandbox_release(sb_.get()), err()); }
    void remove() { detail::check(dval_sandbox_delete(sb_.get()), err()); }
    dval_sandbox *get() const { return sb_.get(); }

private:
    const char *err() const { return dval_sandbox_errmsg(sb_.get()); }
    sandbox_ptr sb_;
};

class client {
public:
    explicit client(const client_config &cfg = {})
    {
        dval_client_options o;
        detail::check(dval_client_options_init(&o, sizeof o));
        o.executor = detail::opt(cfg.executor);
        o.api_url = detail::opt(cfg.api_url);
        o.api_key = detail::opt(cfg.api_key);
        o.state_dir = detail::opt(cfg.state_dir);
        o.request_timeout_ms = cfg.request_timeout_ms;
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
            return static_cast<detail::call<data_fn> *>(ud)->run(std::string_view(d, n));
        };
        dval_snapshot *out = nullptr;
        int rc = dval_snapshot_ensure(&out, c_.get(), &s, c.fn ? +tramp : nullptr, &c);
        c.rethrow();
        detail::check(rc, dval_client_errmsg(c_.get()));
        return snapshot_ptr(out);
    }
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

} // namespace dval

#endif
