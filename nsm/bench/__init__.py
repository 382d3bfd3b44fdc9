"""`nsm bench NAME`: reproducible benchmarks, Frost side by side with PyTorch (DESIGN.md)."""

BENCHMARKS = {
    "resnet18": "ResNet-18, CIFAR variant (11,173,962 parameters): training images/s, "
                "Frost/PyTorch ratio",
    "resnet20": "the original benchmark's CIFAR ResNet-20 (272,464 parameters); "
                "--preset original for its settings",
    "gpt": "a character-level GPT (nanoGPT's CPU configuration) on Tiny Shakespeare: step "
           "time, tokens/s, loss curves, Frost/PyTorch ratio",
    "mnist": "issue 8's MNIST MLP and CNN with test accuracy (packages/frost/examples)",
}
