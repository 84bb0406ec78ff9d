"""DataFrame helpers for reading many files."""
import pandas as pd


def concat(frames, batch_size=5):
    """Concatenate frames batch_size at a time (fewer large intermediate copies than one by
    one); an empty list gives an empty frame."""
    frames = [f for f in frames if f is not None]
    if not frames:
        return pd.DataFrame()
    step = max(int(batch_size), 2)
    while len(frames) > 1:
        frames = [pd.concat(frames[i:i + step], ignore_index=True) for i in range(0, len(frames), step)]
    return frames[0]


def optimize(df, categorical=False):
    """Downcast 64-bit numbers in place; with categorical, strings repeating in more than half
    the rows become pandas categoricals. Returns df."""
    for col in df.select_dtypes(include=["int64"]).columns:
        df[col] = pd.to_numeric(df[col], downcast="integer")
    for col in df.select_dtypes(include=["float64"]).columns:
        df[col] = pd.to_numeric(df[col], downcast="float")
    if categorical:
        for col in df.select_dtypes(include=["object"]).columns:
            if len(df) and df[col].nunique() / len(df) < 0.5:
                df[col] = df[col].astype("category")
    return df
