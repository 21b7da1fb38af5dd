"""Minimal safetensors reader/writer (numpy only)."""
import json, struct
import numpy as np

_DT = {'F16': np.float16, 'F32': np.float32, 'F64': np.float64, 'BF16': None}


def write(path, tensors, metadata=None):
    names = sorted(tensors)
    header = {'__metadata__': metadata or {'format': 'pt'}}
    off = 0
    blobs = []
    for n in names:
        a = np.ascontiguousarray(tensors[n])
        dt = {np.dtype(np.float16): 'F16', np.dtype(np.float32): 'F32'}[a.dtype]
        b = a.astype(a.dtype.newbyteorder('<'), copy=False).tobytes()
        header[n] = {'dtype': dt, 'shape': list(a.shape), 'data_offsets': [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(',', ':')).encode('utf-8')
    h += b' ' * ((-len(h)) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read(path):
    with open(path, 'rb') as f:
        data = f.read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n].decode('utf-8'))
    base = 8 + n
    meta = header.pop('__metadata__', None)
    out = {}
    end = 0
    for name, e in sorted(header.items(), key=lambda kv: kv[1]['data_offsets'][0]):
        b, e2 = e['data_offsets']
        assert b == end, f'gap before {name}'
        end = e2
        out[name] = np.frombuffer(data[base + b:base + e2], dtype=np.dtype(_DT[e['dtype']]).newbyteorder('<')).reshape(e['shape'])
    assert base + end == len(data), 'trailing bytes'
    return out, meta
