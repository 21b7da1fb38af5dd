"""new_file.py - how the Python tools write a file: into a temporary created new beside it
(tempfile.mkstemp: O_CREAT|O_EXCL, so a link planted at a predictable name is never
followed), renamed into place when complete, removed if anything fails. A name that exists
and is not a regular file (a symbolic link, a device, a FIFO, a folder) is never replaced:
NotRegular. The C side's twin is engine/file_write.h.

    with new_file('out/config.json') as f:
        f.write(b'...')
"""
import contextlib
import os
import tempfile


class NotRegular(OSError):
    """path exists and is not a regular file; str() is the one-line reason."""


def _umask():
    m = os.umask(0o022)  # the only way to read it; the tools are single-threaded
    os.umask(m)
    return m


@contextlib.contextmanager
def new_file(path):
    if os.path.lexists(path) and (os.path.islink(path) or not os.path.isfile(path)):
        raise NotRegular('%s: exists and is not a regular file (not replaced)' % path)
    d, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix='.' + base + '.tmp-', dir=d or '.')
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, 'wb') as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
