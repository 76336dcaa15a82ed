"""PyTorch's side of nn's attention tests (transformer_test.go).

    torch_attention.py DIR   writes, for each case, its modules' state dict
                             (CASE_model.safetensors) and its input, masks
                             and PyTorch's output (CASE_io.safetensors)
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "checkpoint", "python"))
import wgtensor_checkpoint as wgt  # noqa: E402

B, T, D, H, FF = 3, 5, 8, 2, 16


def main(d):
    torch.manual_seed(11)
    x = torch.randn(B, T, D)
    pad = torch.zeros(B, T, dtype=torch.bool)
    pad[1, 3:] = True  # sequence 1 has two padded positions
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    cases = {}

    mha = torch.nn.MultiheadAttention(D, H, batch_first=True)
    with torch.no_grad():
        mha.in_proj_bias.uniform_(-0.5, 0.5)
        mha.out_proj.bias.uniform_(-0.5, 0.5)
    mha.eval()
    with torch.no_grad():
        cases["mha"] = (mha, mha(x, x, x, need_weights=False)[0])
        cases["mha_causal"] = (mha, mha(x, x, x, attn_mask=causal, need_weights=False)[0])
        cases["mha_padded"] = (mha, mha(x, x, x, key_padding_mask=pad, need_weights=False)[0])
        kv = torch.randn(B, T + 2, D)
        cases["mha_cross"] = (mha, mha(x, kv, kv, need_weights=False)[0])

    for name, norm_first, act in [("post", False, "relu"), ("pre_gelu", True, "gelu")]:
        layer = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, activation=act, batch_first=True, norm_first=norm_first)
        with torch.no_grad():
            for p in layer.parameters():
                p.add_(0.1 * torch.randn_like(p))
        layer.eval()
        with torch.no_grad():
            cases["layer_" + name] = (layer, layer(x))
            cases["layer_" + name + "_causal"] = (layer, layer(x, src_mask=causal))

    for name, (module, y) in cases.items():
        wgt.save(os.path.join(d, name + "_model.safetensors"), module)
        io = {"x": x, "y": y, "pad": pad.to(torch.int32)}
        if name == "mha_cross":
            io["kv"] = kv
        wgt.write_file(os.path.join(d, name + "_io.safetensors"), io)


if __name__ == "__main__":
    main(sys.argv[1])
