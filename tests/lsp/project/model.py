"""A module: its forward runs every step."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        pos = torch.arange(x.shape[1]).to(x.device)
        return self.lin(x + pos)
