"""Pipeline stages, one module per stage: fetch, environment, analysis, design, generate,
validate, review, register (see DESIGN.md, "One conversion, as data")."""
