"""What Amp and Factory Droid share: Anthropic-style content, and one file per conversation.

Both tools store a message's content as Anthropic Messages API blocks, and both keep each
conversation in a file of its own, in folders that may hold two copies of one conversation:
:mod:`~chatparse.adapters._anthropic.blocks` sorts a message's blocks by what they become, and
:mod:`~chatparse.adapters._anthropic.files` lists the files and keeps the newest copy of each.
The adapters, :mod:`chatparse.adapters.amp` and :mod:`chatparse.adapters.factory_droid`, say
where the files are and how each writes the rest.
"""
