import torch


def train(model, loader, opt):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        pos = torch.arange(8).to(batch.device)
        print(loss.item(), pos)
