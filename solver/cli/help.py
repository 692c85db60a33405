"""The help formatter of every `tricksolver` command: prose wrapped to the terminal, examples
kept as written.

argparse either wraps every text (`HelpFormatter`: examples run together) or none
(`RawDescriptionHelpFormatter`: a one-line description runs off the screen). Here a paragraph
(texts are split at blank lines) is kept as written if it has a line break or an indented line
(examples, tables), and wrapped otherwise.
"""
from __future__ import annotations

import argparse
import textwrap


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs: prose paragraphs wrapped, laid-out ones kept."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        return "\n\n".join(
            paragraph if "\n" in paragraph.strip("\n") or paragraph.startswith(" ") else
            textwrap.fill(paragraph, width, initial_indent=indent, subsequent_indent=indent)
            for paragraph in paragraphs)
