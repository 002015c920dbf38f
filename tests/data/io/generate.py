# Generates the numpy fixtures used by src/io tests (run with numpy installed).
import io
import numpy as np

N, M, K = 6, 3, 4
scores = ((np.arange(N * M * K).reshape(N, M, K) % 17) / 8.0 - 1.0).astype("<f4")
labels = (np.arange(N) % K).astype("<i4")

np.save("scores_f4.npy", scores)
np.save("scores_nk_fortran.npy", np.asfortranarray(scores[:, 0, :].astype("<f8")))
np.save("scores_fortran3.npy", np.asfortranarray(scores.astype("<f8")))
np.save("labels_i4.npy", labels)
np.save("labels_f8.npy", labels.astype("<f8"))
np.save("mask_bool.npy", np.arange(N) % 2 == 0)
np.savez("data.npz", scores=scores, labels=labels, classes=np.array(["a", "b", "c", "d"]))
np.savez_compressed("data_compressed.npz", scores=scores, labels=labels)
# float16: every fixture score (a multiple of 1/8 in [-1, 1]) is exactly a float16.
np.save("scores_f2.npy", scores.astype("<f2"))
np.save("scores_f2_fortran3.npy", np.asfortranarray(scores.astype("<f2")))
np.savez_compressed("data_f2.npz", scores=scores.astype("<f2"), labels=labels)
np.save("labels_f2.npy", labels.astype("<f2"))


class Stream:
    """A write-only, non-seekable target, so zipfile uses data descriptors (flag bit 3)."""

    def __init__(self):
        self.buf = bytearray()

    def write(self, b):
        self.buf += b
        return len(b)

    def flush(self):
        pass

    def read(self, *a):  # numpy only checks that it exists
        raise OSError("write-only")


s = Stream()
np.savez_compressed(s, scores=scores, labels=labels)
open("data_stream.npz", "wb").write(bytes(s.buf))
