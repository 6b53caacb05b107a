"""Entry point inside the sandbox (`python -I -B guard.py ARGS`): rlimits, root dropped, the audit hook (defence
in depth), then `program.py`."""

import os
import resource
import socket
import sys

_BLOCKED = {"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen",
            "os.kill", "os.killpg", "signal.pthread_kill", "os.setuid", "os.setgid", "os.setsid", "os.setpgid",
            "socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo", "ctypes.dlopen", "ctypes.dlsym",
            "os.putenv", "os.unsetenv", "webbrowser.open", "os.startfile"}
_PATH_EVENTS = {"os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.link",
                "os.symlink", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move",
                "shutil.chown", "os.chdir", "os.chroot"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(root, path):
    if isinstance(path, int):
        return True  # an already-open descriptor was checked when it was opened
    path = os.path.realpath(os.fsdecode(os.fspath(path)))
    return path == root or path.startswith(root + os.sep)


def _hook_for(root):
    def hook(event, args):
        if event in _BLOCKED:
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "import" and args[0] in ("ctypes", "_ctypes"):
            raise PermissionError("sandbox: ctypes is not allowed")
        if event == "socket.__new__" and len(args) > 1 and args[1] not in (socket.AF_UNIX, -1):
            raise PermissionError("sandbox: network sockets are not allowed")
        if event == "open" and args[0] is not None:
            mode, flags = args[1] or "", args[2] or 0
            if (any(c in mode for c in "wax+") or flags & _WRITE_FLAGS) and not _inside(root, args[0]):
                raise PermissionError(f"sandbox: writing {args[0]!r} outside the work dir is not allowed")
        if event in _PATH_EVENTS:
            for a in args:
                if isinstance(a, (str, bytes, os.PathLike)) and not _inside(root, a):
                    raise PermissionError(f"sandbox: {event} on {a!r} outside the work dir is not allowed")

    return hook


def main():
    root, uid, cpu, mem, nproc, fsize, guard, as_main = sys.argv[1], *map(int, sys.argv[2:9])
    for res, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, mem), (resource.RLIMIT_FSIZE, fsize),
                       (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(res, (value, value))
    if uid >= 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    os.chdir(root)
    with open("program.py", encoding="utf-8") as fh:
        code = compile(fh.read(), "program.py", "exec")
    with open("done", encoding="ascii") as fh:  # the secret that says "ran to the end": gone before the code runs
        done = fh.read()
    os.remove("done")
    if guard:
        sys.addaudithook(_hook_for(root))
    exec(code, {"__name__": "__main__" if as_main else "__program__", "__builtins__": __builtins__})
    sys.stdout.flush()
    os.write(1, done.encode("ascii"))


if __name__ == "__main__":
    main()
