"""Rewriters: apply a file's fixes and prove them before anything is written (`apply`); how
a fix is written in each kind of file is its front end's (`sortlint.sources`)."""
