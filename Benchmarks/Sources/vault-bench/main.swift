print("vault benchmarks: not written yet")
