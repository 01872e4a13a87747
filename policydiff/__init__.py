"""The policy impact diff: every decision a Rego change flips, before it merges.

A reviewer's and CI's tool, not part of the service (``docs/adr/0014-policy-impact-diff.md``);
``python -m app policy ...`` imports it only for that command.

Modules:

* :mod:`policydiff.corpus`: ``{entrypoint, input}`` records in JSON Lines;
* :mod:`policydiff.generate`: the generated corpus (the fact space of every action);
* :mod:`policydiff.capture`: OPA decision logs turned into corpus records;
* :mod:`policydiff.scratch`: throwaway OPA servers, batch replay, ``git archive``;
* :mod:`policydiff.compare`: what changed between two answers, by kind;
* :mod:`policydiff.minimise`: examples reduced to the facts that matter;
* :mod:`policydiff.diff`: replay, grouping, examples;
* :mod:`policydiff.report`: table, Markdown and JSON reports;
* :mod:`policydiff.expect`: the ``--expect`` gate;
* :mod:`policydiff.doc`: the decision tables of ``docs/policy-decisions.md``;
* :mod:`policydiff.cli`: the ``policy`` commands.
"""
