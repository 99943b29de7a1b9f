"""Step loop of the LSP test project; per-step helpers live in helpers.py."""
import torch
from torch.utils.data import DataLoader

from helpers import log_stats
from model import Net


def train(dataset, device, epochs=3):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=32, num_workers=0)
    for epoch in range(epochs):
        for batch in loader:
            loss = model(batch.to(device)).mean()
            loss.backward()
            optimizer.step()
            log_stats(loss)
