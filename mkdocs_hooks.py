"""MkDocs hooks: the pages made from the code at build time - one per rule, from the text
`sortlint rule CODE` prints, and the changelog - so that the site never says other than the
tool."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

from sortlint.linter.rules import rules
from sortlint.report.rule_pages import rule_path

ROOT = Path(__file__).resolve().parent


def on_config(config):
    """Each rule's page in the navigation, under Rules."""
    rule_pages = [{f"{rule.code} {rule.name}": f"{rule_path(rule.name)}.md"} for rule in rules()]
    config["nav"] = [
        {"Rules": ["rules/index.md", *rule_pages]} if isinstance(item, dict) and "Rules" in item else item
        for item in config["nav"]
    ]
    return config


def on_files(files: Files, config) -> Files:
    for rule in rules():
        title, _, body = rule.doc.strip().partition("\n")
        page = f"# {title}\n{body}\n"
        files.append(File.generated(config, f"{rule_path(rule.name)}.md", content=page))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files
