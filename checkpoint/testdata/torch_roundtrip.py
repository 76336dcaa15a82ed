"""The PyTorch half of checkpoint's round-trip test (torch_test.go).

    torch_roundtrip.py train DIR   trains a small CNN and an MLP with BatchNorm
                                   and saves them with their Adam state, their
                                   inputs and eval-mode outputs
    torch_roundtrip.py check DIR   loads what Go saved with strict=True and
                                   prints, as JSON, how far it is from what
                                   torch computes itself
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import wgtensor_checkpoint as wgt  # noqa: E402

LR = 1e-2


def cnn():
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))


def mlp():
    nn = torch.nn
    return nn.Sequential(nn.Linear(20, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 5))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(8)
        self.c_attn = torch.nn.Linear(8, 24)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))


class Custom(torch.nn.Module):
    """A model written as a class, as Go's custom struct in torch_test.go."""

    def __init__(self):
        super().__init__()
        self.tok_emb = torch.nn.Embedding(16, 8)
        self.pos_emb = torch.nn.Parameter(torch.randn(4, 8))
        self.blocks = torch.nn.ModuleList([Block(), Block()])
        self.heads = torch.nn.ModuleDict({"lm": torch.nn.Linear(8, 16, bias=False)})


MODELS = [("cnn", cnn, (16, 3, 8, 8), 10), ("mlp", mlp, (16, 20), 5)]


def step(model, opt, x, t):
    model.train()
    opt.zero_grad()
    F.cross_entropy(model(x), t).backward()
    opt.step()


def train(d):
    torch.manual_seed(7)
    for name, make, shape, classes in MODELS:
        model = make()
        opt = torch.optim.Adam(model.parameters(), lr=LR)
        x = torch.randn(shape)
        t = torch.randint(0, classes, (shape[0],))
        for _ in range(5):
            step(model, opt, x, t)
        model.eval()
        with torch.no_grad():
            y = model(x)
        wgt.save(os.path.join(d, name + "_torch.safetensors"), model, opt)
        wgt.write_file(os.path.join(d, name + "_io.safetensors"), {"x": x, "y": y, "t": t.to(torch.int32)})
    wgt.save(os.path.join(d, "custom_torch.safetensors"), Custom())


def max_diff(a, b):
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def check(d):
    out = {}
    for name, make, _, _ in MODELS:
        io, _ = wgt.read_file(os.path.join(d, name + "_io.safetensors"))
        x, t = io["x"], io["t"].long()
        # Go's file, loaded strictly, model and optimizer.
        ours = make()
        ours_opt = torch.optim.Adam(ours.parameters(), lr=LR)
        wgt.load(os.path.join(d, name + "_wgt.safetensors"), ours, ours_opt, strict=True)
        ours.eval()
        with torch.no_grad():
            y = ours(x)
        go_y, _ = wgt.read_file(os.path.join(d, name + "_goy.safetensors"))
        res = {"output": max_diff(y, go_y["y"])}
        if name == "cnn":
            # Go took one more Adam step from torch's state: take it here.
            ref = make()
            ref_opt = torch.optim.Adam(ref.parameters(), lr=LR)
            wgt.load(os.path.join(d, name + "_torch.safetensors"), ref, ref_opt, strict=True)
            step(ref, ref_opt, x, t)
            diffs = {n: max_diff(p, q) for (n, p), q in zip(ref.named_parameters(), ours.parameters())}
            res["params"] = max(diffs.values())
            res["worst"] = max(diffs, key=diffs.get)
            ref_state, ours_state = ref_opt.state_dict()["state"], ours_opt.state_dict()["state"]
            res["exp_avg"] = max(max_diff(ref_state[i]["exp_avg"], ours_state[i]["exp_avg"]) for i in ref_state)
            res["exp_avg_sq"] = max(max_diff(ref_state[i]["exp_avg_sq"], ours_state[i]["exp_avg_sq"]) for i in ref_state)
            res["steps"] = sorted({int(s["step"]) for s in ours_state.values()})
            res["running"] = max(max_diff(ref.state_dict()[k], ours.state_dict()[k])
                                 for k in ref.state_dict() if "running" in k)
        out[name] = res
    # The custom model, loaded here and saved back: every tensor the same.
    mine, ours = Custom(), Custom()
    wgt.load(os.path.join(d, "custom_torch.safetensors"), mine, strict=True)
    wgt.load(os.path.join(d, "custom_wgt.safetensors"), ours, strict=True)
    out["custom"] = {"tensors": max(max_diff(v, ours.state_dict()[k]) for k, v in mine.state_dict().items())}
    print(json.dumps(out))


if __name__ == "__main__":
    {"train": train, "check": check}[sys.argv[1]](sys.argv[2])
