"""Python builds of trainbench's built-in MLP and small transformer, for a C++-vs-Python matrix.

The same model and data run as a C++ scenario ("model": "mlp" or "transformer") and as a Python
scenario (this file, function build_mlp or build_transformer): the speedups of amp_bf16 and of
accumulation 4 should agree within their intervals, and the ratio of step times says what the
Python loop costs. Shapes and defaults are those of the C++ models and datasets
(trainbench.builtin); settings.model_options and settings.dataset_options override them with the
C++ option names (hidden, depth; d_model, heads, layers, ff; samples, features, classes; seq_len, vocab).

`build` picks one of the two by the scenario's model name, so that one matrix runs both models in
both loops (crosscheck.json: "axes": {"model": ["mlp", "transformer"], "loop": ["cpp", "python"]}).
"""
import trainbench
from trainbench import builtin


def build_mlp(settings: trainbench.Settings) -> trainbench.Components:
    data, model = settings.dataset_options, settings.model_options
    inputs, labels = builtin.synthetic_classification(
        samples=data.get("samples", 4096), features=data.get("features", 512), classes=data.get("classes", 10),
        seed=settings.seed)
    return trainbench.Components(
        model=builtin.mlp(inputs.shape[1], model.get("hidden", 1024), model.get("depth", 2), data.get("classes", 10)),
        loss_fn=builtin.F.cross_entropy,
        batches=builtin.EpochBatches(inputs, labels, settings.batch, seed=settings.seed))


def build_transformer(settings: trainbench.Settings) -> trainbench.Components:
    data, model = settings.dataset_options, settings.model_options
    seq_len, vocab = data.get("seq_len", 64), data.get("vocab", 256)
    tokens, targets = builtin.markov_tokens(data.get("samples", 4096), seq_len, vocab, seed=settings.seed)
    return trainbench.Components(
        model=builtin.TransformerLM(vocab, seq_len, model.get("d_model", 128), model.get("heads", 4),
                                    model.get("layers", 2), model.get("ff")),
        loss_fn=builtin.lm_loss,
        batches=builtin.EpochBatches(tokens, targets, settings.batch, seed=settings.seed),
        tokens_per_sample=seq_len)


def build(settings: trainbench.Settings) -> trainbench.Components:
    builders = {"mlp": build_mlp, "transformer": build_transformer}
    if settings.model not in builders:
        raise ValueError(f"crosscheck.py builds {', '.join(builders)}; this scenario's model is {settings.model!r}")
    return builders[settings.model](settings)
