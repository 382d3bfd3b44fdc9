// A C++ header: only extern "C" declarations bind; C++ declarations are left alone.
#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace geo {
class Shape {
public:
    virtual ~Shape();
    virtual double area() const = 0;
};
double total_area(const std::vector<Shape*>& shapes);
template <typename T> T twice(T x) { return x + x; }
extern "C" double geo_pi(void);
}

int overloaded(int x);
int overloaded(double x);
std::string describe(int x);

extern "C" {
typedef struct shape_h shape_h;
shape_h* shape_circle(double r);
double shape_area(const shape_h* s);
void shape_free(shape_h* s);
std::size_t shape_count(void);
}

extern "C" int64_t geo_version(void);
extern "C++" int cxx_linkage(int);
