// C++ references and classes cannot be bound, even inside extern "C" (11.3).
class Engine {
public:
    int power() const;
};
struct Plain;

extern "C" {
void by_ref(double& x);
void by_move(double&& x);
void engine_run(Engine* e);
int engine_by_value(Engine e);
void plain_use(Plain* p);
}
