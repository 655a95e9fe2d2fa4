"""Cairn's memory inside other agent frameworks. Each integration is an optional extra and imports its
framework only in its own module: `memory.integrations.agent_framework` needs `cairn[agent-framework]`."""
