"""What PaperPilot remembers about the user: the research profile and saved conversations."""
