"""One module per rule the rewrite handles, `codemod/rules/<id>_<name>.py`: it plans its rule and builds its edit.

Which module handles which rule, in which order, for which stage, is declared
in mappings/data/rules.yaml (`rewrite`), and the planner (`codemod.plan`) loads
the modules from there; this package imports nothing. A module has one
function per stage it declares, each reading the file's facts
(`codemod.analysis.facts`) and writing its decisions into the
`codemod.changes.Plan` it is given (`plan.change`, `plan.flag`, `plan.find`):

- `plan_call(cf, plan)`: a v1 call (its route, URL, body, query);
- `plan_read(read, cf, plan, rule)`: a read of the call's answer under `rule`;
- `plan_param(cf, key_node, name, spec, plan)`: a query parameter of its rule;
- `plan_body_field(spec, value, plan)`: can this body value be converted here
  (True, False, or a `Replace` with the v2 value);
- `plan_file(plan)`: the file's own v1 strings, after every call.

No code is built while planning. The edit step is the module's too: `BUILDS`
maps a change kind to a function turning the change into an `Edit` (a kind
without one is applied from the change's data as it is), `APPLIES` maps an
edit kind to the function making it on the tree. Shared edits (strings,
keys, names, dropped statements, comments) are in `edits.py`.

A rule without a module of its own is either handled `by` another rule's
module (a body field L02's request translator converts, a field L02's read
renames), or not fixed at all: what it concerns is flagged
(`# v1bridge: RULE cause: remedy`) from the rule's remedy.
"""
