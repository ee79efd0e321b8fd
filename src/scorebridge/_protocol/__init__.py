"""The protocol: `Score`, the recording rules, the grade mapping, reading outputs, labels and items, `Scorer`."""
