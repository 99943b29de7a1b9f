"""Variable-length sensor recordings for activity classification."""
import glob
import os

import numpy as np
import torch
from sklearn.preprocessing import StandardScaler
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset


def load_recordings(data_dir):
    """Every recording is an (n_frames, n_channels) float array with one activity label."""
    recordings, labels = [], []
    for path in sorted(glob.glob(os.path.join(data_dir, "*.npz"))):
        archive = np.load(path)
        recordings.append(archive["signal"].astype(np.float32))
        labels.append(int(archive["activity"]))
    return recordings, labels


def fit_scaler(recordings):
    return StandardScaler().fit(np.concatenate(recordings))


class SensorDataset(Dataset):
    """Standardises each recording when it is requested (slow)."""

    def __init__(self, recordings, labels, scaler):
        self.recordings = recordings
        self.labels = labels
        self.scaler = scaler

    def __len__(self):
        return len(self.recordings)

    def __getitem__(self, idx):
        features = self.scaler.transform(self.recordings[idx])
        label = torch.tensor(self.labels[idx], dtype=torch.long)
        return torch.FloatTensor(features), label


class PrenormalizedSensorDataset(Dataset):
    """Standardises everything once, up front, and hands out zero-copy tensors."""

    def __init__(self, recordings, labels, scaler):
        self.features = [torch.from_numpy(scaler.transform(r).astype(np.float32)) for r in recordings]
        self.labels = torch.tensor(labels, dtype=torch.long)

    def __len__(self):
        return len(self.features)

    def __getitem__(self, idx):
        return self.features[idx], self.labels[idx]


def pad_collate(samples):
    features = pad_sequence([f for f, _ in samples], batch_first=True)
    lengths = torch.tensor([len(f) for f, _ in samples], dtype=torch.long)
    labels = torch.stack([y for _, y in samples])
    return features, lengths, labels
