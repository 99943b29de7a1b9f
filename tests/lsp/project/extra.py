"""Code for the test rules in test-rules/ (TL901, TL902)."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x):
        torch.cuda.empty_cache()
        return x * 2


scaler = torch.cuda.amp.GradScaler()
