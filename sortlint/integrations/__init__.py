"""What connects a check to the world around it: git (which lines a change touched) and
the code-review APIs of GitHub and GitLab (posting findings where a change touched)."""
