"""Cairn's memory inside other agent frameworks. Each integration is an optional extra and imports its
framework only in its own module: `cairn.memory.integrations.agent_framework` needs
`cairn-agents[agent-framework]`. The face names the integrations; none is imported here."""

__all__ = ["agent_framework"]
