print("association benchmarks: not written yet")
