#!/usr/bin/env python3
"""concat_train.py - writes a large Python file made of copies of examples/train.py.

usage: concat_train.py SIZE_KIB OUT [SRC]   (SRC defaults to examples/train.py of this repo)

The imports are kept once; the rest of the file is repeated with its top-level functions renamed
(parse_args_<i>, evaluate_<i>, main_<i>) until the output reaches SIZE_KIB KiB. docs/reliability.md
("Known limit: analysis time") times `trainlint check -j 1` on such files.
"""
import os
import re
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    target = int(sys.argv[1]) * 1024
    src = sys.argv[3] if len(sys.argv) == 4 else os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train.py")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    head, body = text.split("\n\n\n", 1)
    out, size, i = [head, ""], len(head), 0
    while size < target:
        copy = re.sub(r"\b(parse_args|evaluate|main)\b", lambda m: f"{m.group(1)}_{i}", body)
        out.append(copy)
        size += len(copy) + 1
        i += 1
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
