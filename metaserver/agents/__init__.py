"""The pipeline's stages, a folder each: fetch, environment, analysis, design, generate,
validate, repair, with register and the optional LLM agents (docs/ARCHITECTURE.md, "Layout").
"""
