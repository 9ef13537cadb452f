"""RQ-VAE tokenizer: MLP encoder, L-level residual quantizer with k-means init and dead-code reset, MLP decoder,
and the attribute exclusivity loss that ties each level to one catalog attribute."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from fashionrq.progress import track
from fashionrq.sid import portable
from fashionrq.sid.base import (
    Tokenizer, check_attributes, check_embeddings, nearest_codes, normalize_rows, torch_threads, training_rows,
)
from fashionrq.sid.exclusivity import conditional_entropy, soft_assignments
from fashionrq.sid.kmeans import kmeans_codebook

DEFAULT_LEVEL_ATTRIBUTES = ("sub_category", "article_type", "base_colour")


def _mlp(sizes: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(portable.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(portable.SiLU())
    return nn.Sequential(*layers)


class RQVAENet(nn.Module):
    """Encoder to a unit-norm latent, residual codebooks ``(levels, K, latent_dim)``, decoder back to the input."""

    def __init__(self, dim: int, hidden_dims: Sequence[int], latent_dim: int, levels: int, codebook_size: int) -> None:
        super().__init__()
        self.encoder = _mlp([dim, *hidden_dims, latent_dim])
        self.decoder = _mlp([latent_dim, *reversed(hidden_dims), dim])
        self.codebooks = nn.Parameter(torch.zeros(levels, codebook_size, latent_dim))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return portable.normalize(self.encoder(x))

    def quantize(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
        """Codes ``(B, L)``, the summed codewords, and per level the residual, its distances and its codeword."""
        residual, total = z, torch.zeros_like(z)
        codes, residuals, distances, words = [], [], [], []
        for book in self.codebooks:
            dist = residual.pow(2).sum(1, keepdim=True) - 2 * portable.matmul(residual, book.T) + book.pow(2).sum(1)
            idx = dist.argmin(dim=1)
            word = book[idx]
            codes.append(idx)
            residuals.append(residual)
            distances.append(dist)
            words.append(word)
            total = total + word
            residual = residual - word.detach()
        return torch.stack(codes, dim=1), total, residuals, distances, words


def prefix_keys(codes: torch.Tensor, codebook_size: int) -> torch.Tensor:
    """One int64 per row of ``codes`` (B, l) whose order is the rows' lexicographic order."""
    key = torch.zeros(len(codes), dtype=torch.int64)
    for column in codes.T:
        key = key * codebook_size + column
    return key


class RQVAE(Tokenizer):
    """Residual-quantised VAE semantic-ID tokenizer with an attribute exclusivity loss (weight 0 = vanilla RQ-VAE)."""

    method = "rqvae"

    def __init__(
        self,
        levels: int = 3,
        codebook_size: int = 64,
        hidden_dims: Sequence[int] = (128,),
        latent_dim: int = 32,
        beta: float = 0.25,
        exclusivity_weight: float = 0.05,
        level_attributes: Sequence[str | None] = DEFAULT_LEVEL_ATTRIBUTES,
        temperature: float = 0.1,
        epochs: int = 30,
        warmup_epochs: int = 2,
        batch_size: int = 512,
        lr: float = 1e-3,
        reset_every: int = 20,
        kmeans_sample: int = 16384,
        train_sample: int | None = 65536,
        seed: int = 0,
        dedup: bool = False,
        num_threads: int = 1,
    ) -> None:
        self.levels = levels
        self.codebook_size = codebook_size
        self.hidden_dims = tuple(hidden_dims)
        self.latent_dim = latent_dim
        self.beta = beta
        self.exclusivity_weight = exclusivity_weight
        self.level_attributes = tuple(level_attributes)
        self.temperature = temperature
        self.epochs = epochs
        self.warmup_epochs = warmup_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.reset_every = reset_every
        self.kmeans_sample = kmeans_sample
        self.train_sample = train_sample  # fit on a seeded sample of at most this many rows (None: all)
        self.seed = seed
        self.dedup = dedup
        self.num_threads = num_threads

    def config(self) -> dict:
        return {
            "method": self.method, "levels": self.levels, "codebook_size": self.codebook_size,
            "hidden_dims": list(self.hidden_dims), "latent_dim": self.latent_dim, "beta": self.beta,
            "exclusivity_weight": self.exclusivity_weight, "level_attributes": list(self.level_attributes),
            "temperature": self.temperature, "epochs": self.epochs, "warmup_epochs": self.warmup_epochs,
            "batch_size": self.batch_size, "lr": self.lr, "reset_every": self.reset_every,
            "kmeans_sample": self.kmeans_sample, "train_sample": self.train_sample, "seed": self.seed, "dedup": self.dedup, "num_threads": self.num_threads,
        }

    def _tied_attributes(self) -> list[tuple[int, str]]:
        if self.exclusivity_weight == 0:
            return []
        return [(level, name) for level, name in enumerate(self.level_attributes[: self.levels]) if name]

    def fit(self, X: np.ndarray, attributes: Mapping[str, np.ndarray] | None = None) -> RQVAE:
        """Train on embeddings ``X`` (N, d); ``attributes`` maps each level attribute to (N,) values (None = missing)."""
        X = normalize_rows(check_embeddings(X, self.codebook_size, None))
        tied = self._tied_attributes()
        encoded = check_attributes(attributes, [name for _, name in tied], len(X))
        rows = training_rows(len(X), self.train_sample, self.seed)
        labels = {name: torch.from_numpy(codes[rows]) for name, codes in encoded.items()}
        self.dim_ = X.shape[1]
        X = X[rows]
        # torch's deterministic-algorithms switch, set in ATen directly: torch.use_deterministic_algorithms also
        # imports torch._inductor to set its flag there, 1-4 s per process (the pinned SID child is one per fit)
        previous = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
        torch._C._set_deterministic_algorithms(True, warn_only=True)
        try:
            with torch_threads(self.num_threads), torch.random.fork_rng(devices=[]):
                torch.manual_seed(self.seed)
                self._train(torch.from_numpy(X.astype(np.float64)), tied, labels)
        finally:
            torch._C._set_deterministic_algorithms(previous[0], warn_only=previous[1])
        self.fitted_ = True
        return self

    def _train(self, X: torch.Tensor, tied: list[tuple[int, str]], labels: dict) -> None:
        net = RQVAENet(X.shape[1], self.hidden_dims, self.latent_dim, self.levels, self.codebook_size)
        optimizer = portable.Adam(net.parameters(), lr=self.lr)
        generator = torch.Generator().manual_seed(self.seed)
        self.net_ = net
        self.history_: list[dict] = []
        n = len(X)
        for epoch in track(range(self.warmup_epochs + self.epochs), "training RQ-VAE", total=self.warmup_epochs + self.epochs):
            if epoch == self.warmup_epochs:
                self._init_codebooks(X)
                usage = torch.zeros(self.levels, self.codebook_size)
                step = 0
            quantizing = epoch >= self.warmup_epochs
            sums = {"recon": 0.0, "quant": 0.0, "exclusivity": 0.0}
            for batch in torch.randperm(n, generator=generator).split(self.batch_size):
                x = X[batch]
                z = net.encode(x)
                if not quantizing:
                    recon = (net.decoder(z) - x).pow(2).sum(1).mean()
                    loss = recon
                    sums["recon"] += float(recon.detach()) * len(batch)
                else:
                    codes, total, residuals, distances, words = net.quantize(z)
                    recon = (net.decoder(z + (total - z).detach()) - x).pow(2).sum(1).mean()
                    quant = sum(
                        (w - r.detach()).pow(2).sum(1).mean() + self.beta * (r - w.detach()).pow(2).sum(1).mean()
                        for r, w in zip(residuals, words)
                    )
                    excl = self._exclusivity(codes, distances, batch, tied, labels) if tied else torch.zeros(())
                    loss = recon + quant + self.exclusivity_weight * excl
                    sums["recon"] += float(recon.detach()) * len(batch)
                    sums["quant"] += float(quant.detach()) * len(batch)
                    sums["exclusivity"] += float(excl.detach()) * len(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if quantizing:
                    for level in range(self.levels):
                        usage[level] += torch.bincount(codes[:, level], minlength=self.codebook_size)
                    step += 1
                    if step % self.reset_every == 0 and epoch < self.warmup_epochs + self.epochs - 1:
                        self._reset_dead(usage, residuals, generator)
                        usage.zero_()
            self.history_.append({"epoch": epoch, **{k: v / n for k, v in sums.items()}})

    def _exclusivity(self, codes: torch.Tensor, distances: list[torch.Tensor], batch: torch.Tensor,
                     tied: list[tuple[int, str]], labels: dict) -> torch.Tensor:
        """Sum over levels l of H(a_j | prefix up to l) for every attribute a_j tied to a level j <= l."""
        total = torch.zeros(())
        for level in range(self.levels):
            names = [name for tied_level, name in tied if tied_level <= level]
            if not names:
                continue
            parents = torch.unique(prefix_keys(codes[:, :level], self.codebook_size), return_inverse=True)[1] if level else None
            p = soft_assignments(distances[level], self.temperature)
            total = total + sum(conditional_entropy(p, labels[name][batch], parents) for name in names)
        return total

    @torch.no_grad()
    def _init_codebooks(self, X: torch.Tensor) -> None:
        """k-means on a seeded sample of each level's residuals."""
        residual = self.net_.encode(X).numpy()
        for level in range(self.levels):
            book = kmeans_codebook(residual, self.codebook_size, self.seed + level, self.kmeans_sample)
            self.net_.codebooks[level] = torch.from_numpy(book)
            residual = residual - book[nearest_codes(residual, book)]

    @torch.no_grad()
    def _reset_dead(self, usage: torch.Tensor, residuals: list[torch.Tensor], generator: torch.Generator) -> None:
        """Move every code unused since the last check onto a random residual of the current batch."""
        for level in range(self.levels):
            dead = torch.nonzero(usage[level] == 0).flatten()
            if len(dead):
                pick = torch.randint(len(residuals[level]), (len(dead),), generator=generator)
                self.net_.codebooks[level, dead] = residuals[level][pick].detach()

    @torch.inference_mode()
    def _forward(self, X: np.ndarray, decode: bool, batch: int = 65536) -> tuple[np.ndarray, np.ndarray | None]:
        """Codes of every row and, with ``decode``, each row's squared reconstruction error."""
        X = torch.from_numpy(normalize_rows(X).astype(np.float64))
        codes, errors = [], []
        self.net_.eval()
        with torch_threads(self.num_threads):
            for chunk in X.split(batch):
                idx, total, *_ = self.net_.quantize(self.net_.encode(chunk))
                codes.append(idx)
                if decode:
                    errors.append((self.net_.decoder(total) - chunk).pow(2).sum(1))
        return torch.cat(codes).numpy().astype(np.int64), torch.cat(errors).numpy() if decode else None

    def codes(self, X: np.ndarray) -> np.ndarray:
        self._check_fitted()
        return self._forward(X, decode=False)[0]

    def reconstruction_error(self, X: np.ndarray) -> float:
        """Mean squared error between unit-normalised rows and the decoded quantised latent."""
        self._check_fitted()
        return float(self._forward(check_embeddings(X, 0), decode=True)[1].mean())

    def state(self) -> dict:
        return self.net_.state_dict()

    def load_state(self, state: Mapping[str, torch.Tensor]) -> None:
        dim = state["encoder.0.weight"].shape[1]
        self.net_ = RQVAENet(dim, self.hidden_dims, self.latent_dim, self.levels, self.codebook_size).double()
        self.net_.load_state_dict(state)
        self.net_.eval()
        self.dim_ = dim
        self.fitted_ = True
