"""Move a PyTorch model and its optimizer to and from wgtensor, one call each way.

    import wgtensor_checkpoint as wgt
    wgt.save("model.safetensors", model, optimizer)   # then, in Go:
    //   checkpoint.LoadModelFile(ctx, e, "model.safetensors", m,
    //       checkpoint.LoadOptions{Layout: checkpoint.PyTorch, Optimizer: opt})
    wgt.load("model.safetensors", model, optimizer)   # a file Go's SaveModelFile
                                                      # wrote with Layout: PyTorch

The file is a plain safetensors file, written and read with the standard
library and torch alone (no safetensors package needed):

- the model's state_dict under its own names ("0.weight", "3.running_mean",
  "3.num_batches_tracked"), in PyTorch's layout (Go converts on its side);
- the optimizer's state of each parameter under "optim.<name>.<slot>"
  ("optim.0.weight.exp_avg"): Adam/AdamW exp_avg, exp_avg_sq,
  max_exp_avg_sq; SGD momentum_buffer; RMSprop square_avg, momentum_buffer,
  grad_avg, named as wgtensor's optimizers name them;
- each parameter's step count in the metadata, "optim.steps.<name>": Adam's
  and RMSprop's "step", 0 for a parameter with no state or no step (SGD).

load() calls model.load_state_dict(strict=...) and optimizer.load_state_dict,
so a file that does not fit the model fails as PyTorch fails.
"""

import json
import struct

import torch

_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32",
    torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16", torch.bool: "BOOL",
}
_TORCH = {v: k for k, v in _DTYPES.items()}
_TORCH["U32"] = None  # no uint32 in torch 1.13: read as int64 below

OPTIMIZER_PREFIX = "optim."
STEPS_PREFIX = OPTIMIZER_PREFIX + "steps."


def write_file(path, tensors, metadata=None):
    """Write {name: tensor} (and string metadata) as a safetensors file."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        data = t.numpy().tobytes() if t.dtype != torch.bfloat16 else t.view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def read_file(path):
    """Read a safetensors file: ({name: tensor}, metadata)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    metadata = header.pop("__metadata__", {}) or {}
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        buf = bytearray(data[begin:end])
        if info["dtype"] == "U32":
            t = torch.frombuffer(buf, dtype=torch.int32).to(torch.int64) & 0xFFFFFFFF
        elif info["dtype"] == "BF16":
            t = torch.frombuffer(buf, dtype=torch.int16).view(torch.bfloat16)
        else:
            t = torch.frombuffer(buf, dtype=_TORCH[info["dtype"]]) if buf else torch.empty(0, dtype=_TORCH[info["dtype"]])
        out[name] = t.reshape(info["shape"]).clone()
    return out, metadata


def _names(model):
    return {p: name for name, p in model.named_parameters()}


def save(path, model, optimizer=None, metadata=None):
    """Save model's state_dict, and optimizer's state if given, for wgtensor."""
    tensors = dict(model.state_dict())
    md = dict(metadata or {})
    if optimizer is not None:
        names = _names(model)
        for group in optimizer.param_groups:
            for p in group["params"]:
                name = names[p]
                state = optimizer.state.get(p, {})
                for slot, v in state.items():
                    if slot == "step":
                        continue
                    tensors[OPTIMIZER_PREFIX + name + "." + slot] = v
                step = state.get("step", 0)
                md[STEPS_PREFIX + name] = str(int(step.item() if torch.is_tensor(step) else step))
    write_file(path, tensors, md)


def load(path, model, optimizer=None, strict=True):
    """Load a file wgtensor saved (Layout: PyTorch) into model, and optimizer."""
    tensors, md = read_file(path)
    state = {k: v for k, v in tensors.items() if not k.startswith(OPTIMIZER_PREFIX)}
    own = model.state_dict()
    for k, v in state.items():  # wgtensor holds integers as int32: widen as torch keeps them
        if k in own and v.dtype != own[k].dtype:
            state[k] = v.to(own[k].dtype)
    result = model.load_state_dict(state, strict=strict)
    if optimizer is None:
        return result
    names = _names(model)
    sd = optimizer.state_dict()
    index = 0
    for group in optimizer.param_groups:
        for p in group["params"]:
            name = names[p]
            slots = {k[len(OPTIMIZER_PREFIX + name) + 1:]: v for k, v in tensors.items()
                     if k.startswith(OPTIMIZER_PREFIX + name + ".")}
            if slots:
                entry = dict(slots)
                step = md.get(STEPS_PREFIX + name)
                if step is not None and not isinstance(optimizer, torch.optim.SGD):
                    entry["step"] = torch.tensor(float(step))
                sd["state"][index] = entry
            index += 1
    optimizer.load_state_dict(sd)
    return result
