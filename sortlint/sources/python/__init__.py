"""What the front ends reading Python share: string literals as the text they evaluate to,
with a map back to the source (`strings`), and the one evaluator of Python constants
(`constants`)."""
