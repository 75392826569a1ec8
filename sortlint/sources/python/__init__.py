"""What the front ends reading Python share: string literals as the text they evaluate to,
with a map back to the source (`strings`), the one evaluator of Python constants
(`constants`), and the one reader of strings built at run time (`built`)."""
