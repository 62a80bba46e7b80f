// Ends the renaming removed_names_begin.h started. No include guard.
#undef unary_function
#undef binary_function
#undef unary_negate
#undef binary_negate
#undef not1
#undef not2
#undef unary_traits
#undef binary_traits
#undef identity
