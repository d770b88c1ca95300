print("password benchmarks: not written yet")
