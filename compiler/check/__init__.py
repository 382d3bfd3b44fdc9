"""The checker: ingests the modules' syntax trees and produces the typed IR (LANGUAGE.md 3-12)."""
