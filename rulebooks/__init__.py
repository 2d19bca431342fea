"""The bundled rulebooks (*.rules), shipped as package data."""
