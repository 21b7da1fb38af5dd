"""restricted_pickle.py - reads nanoGPT's ckpt.pt and meta.pkl (and our own training
checkpoints) without running anything in them. A pickle is a small program: any GLOBAL it
names is imported and may be called (an object's __reduce__ can name os.system). Here every
name goes through find_class, which admits only what those files hold: tensors, OrderedDict,
NumPy scalars and arrays of plain numbers; dicts, lists, tuples, numbers, strings and
booleans need no name at all. Anything else stops the load with Refused, naming
module.class, before it is imported.

torch.load is not used to read the file: torch 1.13 (Debian 12) ignores its pickle_module
argument unless weights_only=True, and its weights_only unpickler refuses every float
(nanoGPT's config, the optimizer's settings). So checkpoint_load reads torch's zip format
itself: archive/data.pkl is unpickled here, and each tensor's bytes come from the
archive/data/KEY record it names; torch only makes tensors of those bytes
(torch.frombuffer, as_strided). Not a sandbox for anything else: the allow-list is exactly
these files' contents. Files from torch before 1.6 (not a zip archive) are refused."""
import collections
import pickle
import zipfile


class Refused(pickle.UnpicklingError):
    """The pickle names a global outside the allow-list; .name is 'module.class'."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


# torch's storage classes as a checkpoint names them (torch.FloatStorage...) -> dtype name
STORAGE_DTYPES = {'FloatStorage': 'float32', 'HalfStorage': 'float16', 'BFloat16Storage': 'bfloat16',
                  'DoubleStorage': 'float64', 'LongStorage': 'int64', 'IntStorage': 'int32',
                  'ShortStorage': 'int16', 'CharStorage': 'int8', 'ByteStorage': 'uint8', 'BoolStorage': 'bool'}


class _StorageType:
    """What find_class hands back for torch.FloatStorage & co: only its dtype is used."""

    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


def _rebuild_tensor(storage, offset, size, stride, *_ignored):
    """torch._utils._rebuild_tensor(_v2): a view of the flat storage tensor (requires_grad,
    backward hooks and metadata are dropped: nothing here trains)."""
    import torch
    return torch.as_strided(storage, tuple(size), tuple(stride), offset)


def _rebuild_parameter(data, *_ignored):
    return data


def _rebuild_from_type(func, new_type, args, _state):
    """torch._tensor._rebuild_from_type_v2 for a plain tensor or parameter: the inner rebuild."""
    import torch
    if new_type not in (torch.Tensor, torch.nn.Parameter):
        raise Refused('tensor subclass %s' % getattr(new_type, '__name__', new_type))
    return func(*args)


def _numpy_multiarray():
    try:
        import numpy._core.multiarray as ma  # numpy 2
    except ImportError:
        import numpy.core.multiarray as ma
    return ma


def _numpy_plain_scalar(dtype, *rest):
    """numpy's scalar constructor for numeric dtypes only: an object dtype hands back
    whatever the pickle built, and we expect a number."""
    if getattr(dtype, 'hasobject', True):
        raise Refused('numpy scalar of dtype %s' % dtype)
    return _numpy_multiarray().scalar(dtype, *rest)


def _latin1_bytes(text, encoding):
    """_codecs.encode as pickle protocol 2 (torch.save's) spells a bytes object: bytes only."""
    if encoding != 'latin1' or not isinstance(text, str):
        raise Refused('_codecs.encode to %.20s' % encoding)
    return text.encode('latin1')


def _allowed_checkpoint_globals():
    import torch
    names = {'collections.OrderedDict': collections.OrderedDict, 'torch.Size': torch.Size,
             'torch.Tensor': torch.Tensor, 'torch.nn.parameter.Parameter': torch.nn.Parameter,
             'torch._utils._rebuild_tensor': _rebuild_tensor, 'torch._utils._rebuild_tensor_v2': _rebuild_tensor,
             'torch._utils._rebuild_parameter': _rebuild_parameter,
             'torch._utils._rebuild_parameter_with_state': _rebuild_parameter,
             'torch._tensor._rebuild_from_type_v2': _rebuild_from_type,
             'torch._utils._rebuild_from_type_v2': _rebuild_from_type, '_codecs.encode': _latin1_bytes}
    for s, d in STORAGE_DTYPES.items():
        names['torch.' + s] = _StorageType(d)
        names['torch.' + d] = getattr(torch, d)  # a dtype pickles as the global torch.float32
    try:
        import numpy
    except ImportError:
        return names
    for mod in ('numpy.core.multiarray', 'numpy._core.multiarray'):  # numpy 1 and 2
        names[mod + '.scalar'] = _numpy_plain_scalar
        names[mod + '._reconstruct'] = _numpy_multiarray()._reconstruct
    names['numpy.ndarray'] = numpy.ndarray
    names['numpy.dtype'] = numpy.dtype
    return names


class _CheckpointUnpickler(pickle.Unpickler):
    """The checkpoint allow-list; storages come from the zip records (persistent ids)."""

    def __init__(self, file, zf, prefix, allowed):
        super().__init__(file, encoding='utf-8')
        self.zf, self.prefix, self.allowed, self.storages = zf, prefix, allowed, {}

    def find_class(self, module, name):
        obj = self.allowed.get('%s.%s' % (module, name))
        if obj is None:
            raise Refused('%s.%s' % (module, name))
        return obj

    def persistent_load(self, pid):
        import torch
        # ('storage', storage type, key, location, numel), as torch.save writes it
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == 'storage' and
                isinstance(pid[1], _StorageType) and isinstance(pid[2], str)):
            raise pickle.UnpicklingError('unexpected persistent id %.80r' % (pid,))
        key = pid[2]
        if key not in self.storages:
            dtype = getattr(torch, pid[1].dtype_name)
            name = '%s/data/%s' % (self.prefix, key)
            raw = bytearray(self.zf.getinfo(name).file_size)  # read once, in place
            with self.zf.open(name) as f:
                if f.readinto(raw) != len(raw):
                    raise pickle.UnpicklingError('storage %s: truncated' % key)
            itemsize = torch.empty(0, dtype=dtype).element_size()
            if len(raw) % itemsize:
                raise pickle.UnpicklingError('storage %s: %d bytes, not a whole number of %s' %
                                             (key, len(raw), pid[1].dtype_name))
            self.storages[key] = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        return self.storages[key]


def checkpoint_load(path):
    """The object torch.save wrote to path (a zip archive), through the allow-list above."""
    if not zipfile.is_zipfile(path):
        raise pickle.UnpicklingError('not a zip archive (torch.save since torch 1.6 writes one)')
    with zipfile.ZipFile(path) as zf:
        pkl = [n for n in zf.namelist() if n.count('/') == 1 and n.endswith('/data.pkl')]
        if len(pkl) != 1:
            raise pickle.UnpicklingError('no single <name>/data.pkl in the archive')
        prefix = pkl[0][:-len('/data.pkl')]
        try:
            order = zf.read(prefix + '/byteorder').decode().strip()
        except KeyError:
            order = 'little'
        if order != 'little':
            raise pickle.UnpicklingError('byte order %.20s is not supported' % order)
        with zf.open(pkl[0]) as f:
            return _CheckpointUnpickler(f, zf, prefix, _allowed_checkpoint_globals()).load()


class _PlainUnpickler(pickle.Unpickler):
    """No globals at all: dicts, lists, tuples, numbers and strings only."""

    def find_class(self, module, name):
        raise Refused('%s.%s' % (module, name))


def load_plain(file):
    """pickle.load that admits no global (a char-level meta.pkl)."""
    return _PlainUnpickler(file).load()
