// weak_main.h - force-included (cmake/Tutorial.cmake) where a lesson's .cu is
// compiled once for both its program and its test: the lesson's main()
// becomes a weak symbol, so the program still starts there, while the test,
// which links the same objects, starts in tests/test_main.cpp's main().
#pragma weak main
