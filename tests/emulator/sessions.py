"""Real command execution, modelled on the Daytona daemon (PROTOCOL 5.1).

A session is one long-lived shell (bash if present, else sh) reading command
wrappers from its stdin.  Each exec writes `<cmdId>/cmd.sh` and sends

    { . cmd.sh; } <stdin >out.fifo 2>err.fifo; printf '__EMU_DONE__ <cmdId> %s\n' $?

so cd/export/functions persist between commands of a session and commands run
strictly in order.  The emulator reads both FIFOs in the event loop, prefixes
every line with 01 01 01 (stdout) or 02 02 02 (stderr) into `output.log`, and
sets the exit code only after both FIFOs reached EOF *and* the shell reported
the status, so a command with an exit code has a complete log.  These files
live under /dev/shm when it exists (see _state_root), the sandboxes' own
directories under the emulator's root.

Isolation: as root each shell runs in a private mount namespace with the
sandbox's own directories bind-mounted on /sandbox and /home/daytona, set up by
the small nsexec.c (compiled on first use; one exec before the shell's) or,
without a C compiler, `unshare --mount` + sh + mount;
unprivileged, `unshare -Urm` is tried; without either, commands run unisolated
with HOME and the working directory set to the sandbox's home directory."""
import asyncio
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile

from util import M_ERR, M_OUT, new_id

DONE_TAG = b"__EMU_DONE__ "
MOUNT_SCRIPT = ('mount --bind "$1" /sandbox && mount --bind "$2" /home/daytona '
                '|| { echo "emulator: bind mounts failed" >&2; exit 97; }; '
                'cd /home/daytona; shift 2; exec "$@"')


def shell_path():
    for p in ("/usr/bin/bash", "/bin/bash"):
        if os.access(p, os.X_OK):
            return [p, "-s"]
    return ["/bin/sh", "-s"]


HERE = os.path.dirname(os.path.abspath(__file__))


def _cache_dirs():
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return [os.path.join(xdg, "daytona-emulator"),
            os.path.join(tempfile.gettempdir(), "daytona-emulator-%d" % os.geteuid())]


def build_nsexec():
    """Path of the compiled nsexec.c (cached by its hash), or None."""
    src = os.path.join(HERE, "nsexec.c")
    try:
        with open(src, "rb") as f:
            tag = hashlib.sha256(f.read()).hexdigest()[:12]
    except OSError:
        return None
    for d in _cache_dirs():
        exe = os.path.join(d, "nsexec-" + tag)
        if os.access(exe, os.X_OK):
            return exe
        try:
            os.makedirs(d, exist_ok=True)
            tmp = "%s.%d" % (exe, os.getpid())
            r = subprocess.run(["cc", "-O2", "-o", tmp, src], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60)
            if r.returncode == 0:
                os.rename(tmp, exe)
                return exe
        except (OSError, subprocess.SubprocessError):
            pass
    return None


def _probe_nsexec():
    """nsexec, when it builds and can bind-mount here (root)."""
    exe = build_nsexec()
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, "/tmp", "/tmp", "/bin/true"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if r.returncode == 0 else None


def probe_isolation():
    """'root', 'userns' or 'none' (see module doc)."""
    if not shutil.which("unshare"):
        return "none"
    if os.geteuid() == 0:
        for d in ("/sandbox", "/home/daytona"):
            try:
                os.makedirs(d, exist_ok=True)
            except OSError:
                return "none"
        base = ["unshare", "--mount", "--propagation", "private"]
    else:
        if not (os.path.isdir("/sandbox") and os.path.isdir("/home/daytona")):
            return "none"
        base = ["unshare", "-Urm", "--propagation", "private"]
    try:
        r = subprocess.run(base + ["sh", "-c", "mount --bind /tmp /sandbox"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "none"
    if r.returncode != 0:
        return "none"
    return "root" if os.geteuid() == 0 else "userns"


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


class Command:
    def __init__(self, session, command, run_async, suppress_echo):
        self.id = new_id()
        self.session = session
        self.command = command
        self.run_async = run_async
        self.suppress_echo = suppress_echo
        self.dir = os.path.join(session.dir, self.id)
        self.log_path = os.path.join(self.dir, "output.log")
        self.exit_code = None
        self.log_size = 0         # bytes appended to output.log (log followers)
        self.shell_rc = None
        self.open_streams = 0
        self.partial = {}
        self.fds = {}
        self.log_fd = None
        self.in_fd = None
        self.done = asyncio.Event()

    def info(self):
        d = {"id": self.id, "command": self.command}
        if self.exit_code is not None:
            d["exitCode"] = self.exit_code
        return d


class SessionDead(Exception):
    pass


class Session:
    def __init__(self, mgr, sandbox, sid):
        self.mgr = mgr
        self.sandbox = sandbox
        self.id = sid
        self.dir = os.path.join(mgr.sessions_dir(sandbox), sid)
        self.commands = {}        # insertion-ordered
        self.alive = True
        self.deleted = False
        self.proc = None
        self.status_buf = b""
        self.listeners = set()    # asyncio.Event of open log followers

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        argv, cwd, env = self.mgr.shell_command(self.sandbox)
        with open(os.path.join(self.dir, "shell.err"), "wb") as errf:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=errf, cwd=cwd, env=env,
                                         start_new_session=True, close_fds=True)
        fd = self.proc.stdout.fileno()
        os.set_blocking(fd, False)
        asyncio.get_event_loop().add_reader(fd, self._on_status)

    # ---- status channel ------------------------------------------------
    def _on_status(self):
        fd = self.proc.stdout.fileno()
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_event_loop().remove_reader(fd)
            self.alive = False
            self.proc.poll()
            return
        self.status_buf += data
        while b"\n" in self.status_buf:
            line, self.status_buf = self.status_buf.split(b"\n", 1)
            if not line.startswith(DONE_TAG):
                continue
            parts = line[len(DONE_TAG):].split()
            if len(parts) != 2:
                continue
            cmd = self.commands.get(parts[0].decode(errors="replace"))
            if cmd is not None:
                try:
                    cmd.shell_rc = int(parts[1])
                except ValueError:
                    cmd.shell_rc = -1
                self._maybe_finish(cmd)

    # ---- exec ----------------------------------------------------------
    def exec(self, command, run_async, suppress_echo):
        if not self.alive or self.proc.poll() is not None:
            self.alive = False
            raise SessionDead("session process has exited")
        cmd = Command(self, command, run_async, suppress_echo)
        os.makedirs(cmd.dir)
        with open(os.path.join(cmd.dir, "cmd.sh"), "w") as f:
            f.write(command)
            f.write("\n")
        cmd.log_fd = os.open(cmd.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        loop = asyncio.get_event_loop()
        for name in ("out", "err"):
            path = os.path.join(cmd.dir, name + ".fifo")
            os.mkfifo(path, 0o600)
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            cmd.fds[name] = fd
            cmd.partial[name] = b""
            cmd.open_streams += 1
            loop.add_reader(fd, self._on_output, cmd, name)
        if run_async:
            in_path = os.path.join(cmd.dir, "in.fifo")
            os.mkfifo(in_path, 0o600)
            cmd.in_fd = os.open(in_path, os.O_RDWR | os.O_NONBLOCK)
        else:
            in_path = "/dev/null"
        q = lambda n: sh_quote(os.path.join(cmd.dir, n))
        wrapper = "{ . %s; } <%s >%s 2>%s; printf '__EMU_DONE__ %s %%s\\n' \"$?\"\n" % (
            q("cmd.sh"), sh_quote(in_path), q("out.fifo"), q("err.fifo"), cmd.id)
        self.commands[cmd.id] = cmd
        try:
            self.proc.stdin.write(wrapper.encode())
            self.proc.stdin.flush()
        except OSError:
            self.alive = False
            self._close_cmd(cmd)
            del self.commands[cmd.id]
            raise SessionDead("session process has exited")
        return cmd

    def _on_output(self, cmd, name):
        fd = cmd.fds.get(name)
        if fd is None:
            return
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        marker = M_OUT if name == "out" else M_ERR
        if data:
            buf = cmd.partial[name] + data
            lines = buf.split(b"\n")
            cmd.partial[name] = lines.pop()
            if lines:
                self._append(cmd, b"".join(marker + ln + b"\n" for ln in lines))
            return
        # EOF: a final line without newline gets one
        asyncio.get_event_loop().remove_reader(fd)
        os.close(fd)
        del cmd.fds[name]
        if cmd.partial[name]:
            self._append(cmd, marker + cmd.partial[name] + b"\n")
            cmd.partial[name] = b""
        cmd.open_streams -= 1
        self._maybe_finish(cmd)

    def _append(self, cmd, data):
        if cmd.log_fd is not None:
            cmd.log_size += os.write(cmd.log_fd, data)

    def _maybe_finish(self, cmd):
        if cmd.exit_code is not None or cmd.open_streams > 0 or cmd.shell_rc is None:
            return
        cmd.exit_code = cmd.shell_rc
        self._close_cmd(cmd)
        cmd.done.set()

    def _close_cmd(self, cmd):
        loop = asyncio.get_event_loop()
        for name, fd in list(cmd.fds.items()):
            loop.remove_reader(fd)
            os.close(fd)
        cmd.fds.clear()
        for attr in ("in_fd", "log_fd"):
            fd = getattr(cmd, attr)
            if fd is not None:
                os.close(fd)
                setattr(cmd, attr, None)

    def send_input(self, cmd, data):
        """Returns None on success, or the 410 reason."""
        if cmd.exit_code is not None:
            return "command has already completed with exit code %d" % cmd.exit_code
        if not self.alive or self.proc.poll() is not None:
            return "session process has exited"
        if not data.endswith("\n"):
            data += "\n"
        raw = data.encode()
        if cmd.in_fd is not None:
            try:
                os.write(cmd.in_fd, raw)
            except BlockingIOError:
                pass
        if not cmd.suppress_echo:
            self._append(cmd, b"".join(M_OUT + ln + b"\n" for ln in raw[:-1].split(b"\n")))
        return None

    # ---- teardown ------------------------------------------------------
    def kill(self):
        """SIGTERM the session's process group now, SIGKILL after a grace period;
        forget logs; wake log followers (they close with 1000)."""
        self.deleted = True
        self.alive = False
        loop = asyncio.get_event_loop()
        if self.proc is not None:
            try:
                loop.remove_reader(self.proc.stdout.fileno())
            except (ValueError, OSError):
                pass
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
            proc = self.proc
            loop.call_later(1.0, _hard_kill, proc)
        for cmd in self.commands.values():
            self._close_cmd(cmd)
            cmd.done.set()
        for ev in list(self.listeners):
            ev.set()
        shutil.rmtree(self.dir, ignore_errors=True)

    def info(self):
        return {"sessionId": self.id, "commands": [c.info() for c in self.commands.values()]}


def _hard_kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.stdout.close()
    except OSError:
        pass
    proc.poll()


STATE_PREFIX = "daytona-emu-sessions-"


def _drop_stale_states(shm):
    """State dirs of emulators that died without cleaning up (SIGKILL)."""
    for name in os.listdir(shm):
        pid = name[len(STATE_PREFIX):].split("-", 1)[0]
        if not name.startswith(STATE_PREFIX) or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(shm, name), ignore_errors=True)
        except OSError:
            pass


def _state_root(root):
    """The sessions' own files (command scripts, FIFOs, logs): on tmpfs when
    there is one, as creating files there costs a fraction of a disk's."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        try:
            _drop_stale_states(shm)
            return tempfile.mkdtemp(prefix="%s%d-" % (STATE_PREFIX, os.getpid()), dir=shm)
        except OSError:
            pass
    d = os.path.join(root, ".sessions")
    os.makedirs(d, exist_ok=True)
    return d


class SessionManager:
    def __init__(self, root):
        self.root = root
        self.state = _state_root(root)
        self.isolation = probe_isolation()
        self.nsexec = _probe_nsexec() if self.isolation == "root" else None
        self.by_sandbox = {}   # sandbox id -> {session id -> Session}

    def base(self, sandbox):
        return os.path.join(self.root, sandbox.id)

    def sandbox_dirs(self, sandbox):
        b = self.base(sandbox)
        return os.path.join(b, "sandbox"), os.path.join(b, "home")

    def sessions_dir(self, sandbox):
        return os.path.join(self.state, sandbox.id)

    def ensure_dirs(self, sandbox):
        for d in self.sandbox_dirs(sandbox) + (self.sessions_dir(sandbox),):
            if not os.path.isdir(d):    # a stat: cheaper than a failing mkdir
                os.makedirs(d, exist_ok=True)

    def shell_command(self, sandbox, extra_env=None):
        """(argv, cwd, env) of a shell in the sandbox's view of the file system."""
        sbx_dir, home_dir = self.sandbox_dirs(sandbox)
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
               "LANG": "C.UTF-8", "USER": sandbox.user, "LOGNAME": sandbox.user,
               "DAYTONA_SANDBOX_ID": sandbox.id,
               "DAYTONA_SANDBOX_SNAPSHOT": sandbox.snapshot or "",
               "DAYTONA_SANDBOX_USER": sandbox.user}
        if self.isolation == "none":
            env["HOME"] = home_dir
            argv = shell_path()
        elif self.nsexec:
            env["HOME"] = "/home/daytona"
            argv = [self.nsexec, sbx_dir, home_dir] + shell_path()
        else:
            env["HOME"] = "/home/daytona"
            base = (["unshare", "--mount", "--propagation", "private"]
                    if self.isolation == "root"
                    else ["unshare", "-Urm", "--propagation", "private"])
            argv = base + ["sh", "-c", MOUNT_SCRIPT, "emu-session", sbx_dir, home_dir] + shell_path()
        for k, v in list((sandbox.env or {}).items()) + list((extra_env or {}).items()):
            env[str(k)] = str(v)
        return argv, home_dir, env

    def spawn_oneshot(self, sandbox, extra_env):
        """A fresh shell for /process/execute: script on stdin, stdout+stderr combined."""
        self.ensure_dirs(sandbox)
        argv, cwd, env = self.shell_command(sandbox, extra_env)
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, cwd=cwd, env=env,
                                start_new_session=True, close_fds=True)

    def sessions(self, sandbox):
        return self.by_sandbox.setdefault(sandbox.id, {})

    def create(self, sandbox, sid):
        self.ensure_dirs(sandbox)
        s = Session(self, sandbox, sid)
        s.start()
        self.sessions(sandbox)[sid] = s
        return s

    def delete(self, sandbox, sid):
        s = self.sessions(sandbox).pop(sid, None)
        if s:
            s.kill()
        return s

    def kill_all(self, sandbox):
        """Sandbox stopped/destroyed: the daemon and all its sessions go away."""
        for sid in list(self.by_sandbox.get(sandbox.id, {})):
            self.delete(sandbox, sid)

    def remove_sandbox(self, sandbox):
        self.kill_all(sandbox)
        self.by_sandbox.pop(sandbox.id, None)
        shutil.rmtree(self.base(sandbox), ignore_errors=True)
        shutil.rmtree(self.sessions_dir(sandbox), ignore_errors=True)

    def shutdown(self):
        for sbx_sessions in list(self.by_sandbox.values()):
            for s in list(sbx_sessions.values()):
                if s.proc is not None:
                    try:
                        os.killpg(s.proc.pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
        shutil.rmtree(self.state, ignore_errors=True)
