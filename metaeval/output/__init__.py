"""What readers see: figures, reports (Markdown, HTML, LaTeX, JSON), study files and the demo."""
