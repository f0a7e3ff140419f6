module dval

go 1.19
