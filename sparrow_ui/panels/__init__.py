"""The parts of the Compare, Tools and Memory pages."""
